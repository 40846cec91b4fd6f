import type { IncomingMessage, ServerResponse } from 'node:http';
import type { FastifyBaseLogger, FastifyInstance, RawServerDefault } from 'fastify';
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { ActorSource } from '../auth/actor-source.js';
import type { TokenService } from '../auth/jwt.js';
import { openDatabase, type Database, type OpenDatabaseOptions } from '../db/database.js';
import type { LockStore } from '../idempotency/lock-store.js';
import type { CredentialThrottle } from './credential-throttle.js';
import { installRequestGuards } from './guards.js';
import { IDEMPOTENCY_KEY_NOTE, installIdempotencyReplay } from './idempotency-replay.js';
import { createServiceApp, type ServiceAppOptions } from './service-app.js';

export type ServiceFastify = FastifyInstance<RawServerDefault, IncomingMessage, ServerResponse, FastifyBaseLogger, TypeBoxTypeProvider>;

/** What a service's modules are built from once the database is open and the guards are in place. */
export interface ServiceParts {
  app: ServiceFastify;
  database: Database;
  tokens: TokenService;
  locks: LockStore;
  throttle: CredentialThrottle;
}

export interface StartServiceOptions<TDeps, TBootstrap> extends Omit<ServiceAppOptions, 'health' | 'exposeStackTraces'> {
  /** Stack traces appear in 500 answers only in development with EXPOSE_STACK=1. */
  nodeEnv: string;
  database: OpenDatabaseOptions;
  /** Called once the database is open, so a failed open leaves no lock store (or Redis connection) behind. */
  locks: () => LockStore;
  /** The credential throttle (counters in Redis or in process), created next to the lock store. */
  throttle: () => CredentialThrottle;
  /** Runs before any route exists (first administrator, fixed rows). */
  bootstrap: (database: Database) => Promise<TBootstrap>;
  tokens: TokenService;
  /** Where the service's callers come from (cached by account version in the guards). */
  actors: (database: Database) => ActorSource;
  /** Registers the service's modules and returns the dependencies they share. */
  modules: (parts: ServiceParts) => TDeps;
}

export interface StartedService<TDeps, TBootstrap> {
  app: ServiceFastify;
  deps: TDeps;
  bootstrap: TBootstrap;
  /** Closes once: the HTTP app first (in-flight requests finish), then the lock store and the throttle, then the database. */
  close(): Promise<void>;
}

/**
 * Opens the (migrated) database, runs the bootstrap, then builds the HTTP app with the request guards
 * and the service's modules. A failure on the way closes what was opened.
 */
export async function startService<TDeps, TBootstrap>(
  options: StartServiceOptions<TDeps, TBootstrap>,
): Promise<StartedService<TDeps, TBootstrap>> {
  const database = await openDatabase(options.database);
  const locks = options.locks();
  const throttle = options.throttle();
  try {
    const bootstrap = await options.bootstrap(database);
    const { tokens } = options;
    const app = (await createServiceApp({
      title: options.title,
      description: `${options.description} ${IDEMPOTENCY_KEY_NOTE}`,
      validationStatus: options.validationStatus,
      logger: options.logger,
      exposeStackTraces: options.nodeEnv === 'development' && process.env.EXPOSE_STACK === '1',
      health: () => database.ping(),
    })) as unknown as ServiceFastify;
    // before the guards, so its preHandler runs ahead of the 5-second lock (decisions, Idempotency-Key)
    installIdempotencyReplay(app, { database });
    installRequestGuards(app, { tokens, actors: options.actors(database), database, locks, throttle });
    const deps = options.modules({ app, database, tokens, locks, throttle });
    await app.ready();
    let closed = false;
    return {
      app,
      deps,
      bootstrap,
      close: async () => {
        if (closed) return;
        closed = true;
        await app.close();
        await locks.close();
        await throttle.close();
        await database.close();
      },
    };
  } catch (err) {
    await locks.close();
    await throttle.close();
    await database.close();
    throw err;
  }
}
