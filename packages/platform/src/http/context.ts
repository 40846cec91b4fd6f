import type { FastifyRequest } from 'fastify';
import type { Actor } from '../auth/actor.js';
import { companyScopeOf } from '../auth/actor.js';
import { confirmActorVersion, readActorVersion } from '../auth/actor-source.js';
import type { CompanyScope } from '../auth/company-scope.js';
import { RetryTransaction, type ActorVersionProbe, type Database, type OpeningStatement, type Queryable, type TransactionBody } from '../db/database.js';
import { AppError, isSerializationFailure } from '../errors.js';
import type { ActorConfirmation } from './guards.js';

/**
 * What every use case receives next to its input: who acts, in which company scope, at what time,
 * and the way into the database. Transactions opened here carry the audit context (actor and
 * request URL) so the audit triggers attribute every write.
 */
export interface UseCaseContext {
  readonly actor: Actor;
  readonly now: Date;
  readonly requestUrl: string;
  scope(requestedCompany?: string | null): CompanyScope;
  /** `opening` runs in the round trip that opens the transaction; fn gets its rows (Database.transaction). */
  transaction<T, R = never>(fn: TransactionBody<T, R>, opening?: OpeningStatement<R>): Promise<T>;
  read<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /**
   * A read whose own statement also returns the caller's account version (the service's version SQL
   * with the user id given here): the cached actor is confirmed without a round trip of its own.
   */
  readWithActorVersion<T>(fn: (q: Queryable, userId: number) => Promise<{ actorVersion: string | null; value: T }>): Promise<T>;
  /** Runs after the surrounding transaction committed (mail, notifications, cache). */
  afterCommit(effect: () => void | Promise<void>): void;
}

/** A transaction that keeps losing its race (RetryTransaction) gives up with 409 after this many runs. */
const TRANSACTION_ATTEMPTS = 8;

export function createUseCaseContext(
  database: Database,
  actor: Actor,
  requestUrl: string,
  now = new Date(),
  confirmation?: ActorConfirmation,
): UseCaseContext {
  const pending: Array<() => void | Promise<void>> = [];
  const runAfterCommit = () => {
    for (const effect of pending.splice(0)) {
      Promise.resolve()
        .then(effect)
        .catch(() => undefined);
    }
  };
  const unconfirmed = () => (confirmation && !confirmation.check.confirmed ? confirmation : undefined);
  return {
    actor,
    now,
    requestUrl,
    scope: (requested) => companyScopeOf(actor, requested),
    transaction: async (fn, opening) => {
      for (let attempt = 1; ; attempt++) {
        try {
          const actorProbe = probeOf(unconfirmed());
          const result = await database.transaction({ actor: actor.username, company: actor.company, requestUrl, actorProbe }, fn, opening);
          runAfterCommit();
          return result;
        } catch (err) {
          pending.length = 0;
          // a statement that found its rows taken meanwhile raises a serialization failure (e.g. retry_unless())
          if (!(err instanceof RetryTransaction) && !isSerializationFailure(err)) throw err;
          if (attempt >= TRANSACTION_ATTEMPTS) throw new AppError('CONFLICT', '数据正被其他请求同时修改，请稍后重试');
        }
      }
    },
    read: (fn) =>
      database.read(async (q) => {
        const open = unconfirmed();
        if (open) await confirmBeforeRead(q, open);
        return fn(q);
      }),
    readWithActorVersion: async (fn) => {
      const { actorVersion, value } = await database.read((q) => fn(q, actor.id));
      const open = unconfirmed();
      if (open) confirmActorVersion(open.check, actorVersion);
      return value;
    },
    afterCommit: (effect) => pending.push(effect),
  };
}

function probeOf(confirmation: ActorConfirmation | undefined): ActorVersionProbe | undefined {
  if (!confirmation) return undefined;
  return {
    query: confirmation.versionQuery,
    userId: confirmation.check.userId,
    confirm: (version) => confirmActorVersion(confirmation.check, version),
  };
}

async function confirmBeforeRead(q: Queryable, confirmation: ActorConfirmation): Promise<void> {
  confirmActorVersion(confirmation.check, await readActorVersion(q, confirmation.versionQuery, confirmation.check.userId));
}

export function contextOf(request: FastifyRequest, database: Database): UseCaseContext {
  return createUseCaseContext(database, request.actor, request.url, new Date(), request.actorConfirmation);
}
