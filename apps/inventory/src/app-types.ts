import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contextOf, type CredentialThrottle, type Database, type LockStore, type TokenService, type UseCaseContext } from '@wms/platform';
import type { InventoryConfig } from './config.js';

export type InventoryFastify = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What route modules receive: the shared services of one running inventory app. */
export interface InventoryDeps {
  config: InventoryConfig;
  database: Database;
  tokens: TokenService;
  locks: LockStore;
  throttle: CredentialThrottle;
}

export const ctxOf = (deps: InventoryDeps, request: FastifyRequest): UseCaseContext => contextOf(request, deps.database);
