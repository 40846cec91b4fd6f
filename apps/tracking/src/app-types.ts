import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, FastifyRequest, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import { contextOf, type CredentialThrottle, type Database, type LockStore, type TokenService } from '@wms/platform';
import type { TrackingConfig } from './config.js';
import { withDataScope, type DataScopeResolver, type TrackingContext } from './modules/identity/data-scope.js';

export type TrackingFastify = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What route modules receive: the shared services of one running tracking app. */
export interface TrackingDeps {
  config: TrackingConfig;
  database: Database;
  tokens: TokenService;
  locks: LockStore;
  throttle: CredentialThrottle;
  dataScope: DataScopeResolver;
}

/**
 * The use-case context of a request. Its actor always belongs to ORG_DEPARTMENT (the actor loader
 * refuses everybody else), and `actor.company` is that department. `dataScope()` resolves the caller's
 * data scope (spec §3) on first use.
 */
export const ctxOf = (deps: TrackingDeps, request: FastifyRequest): TrackingContext =>
  withDataScope(contextOf(request, deps.database), deps.dataScope);
