import type { FastifyRequest } from 'fastify';
import type { Actor } from '../auth/actor.js';
import { companyScopeOf } from '../auth/actor.js';
import type { CompanyScope } from '../auth/company-scope.js';
import type { Database, Queryable, Tx } from '../db/database.js';

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
  transaction<T>(fn: (tx: Tx) => Promise<T>): Promise<T>;
  read<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** Runs after the surrounding transaction committed (mail, notifications, cache). */
  afterCommit(effect: () => void | Promise<void>): void;
}

export function createUseCaseContext(database: Database, actor: Actor, requestUrl: string, now = new Date()): UseCaseContext {
  const pending: Array<() => void | Promise<void>> = [];
  const runAfterCommit = () => {
    for (const effect of pending.splice(0)) {
      Promise.resolve()
        .then(effect)
        .catch(() => undefined);
    }
  };
  return {
    actor,
    now,
    requestUrl,
    scope: (requested) => companyScopeOf(actor, requested),
    transaction: async (fn) => {
      try {
        const result = await database.transaction({ actor: actor.username, company: actor.company, requestUrl }, fn);
        runAfterCommit();
        return result;
      } catch (err) {
        pending.length = 0;
        throw err;
      }
    },
    read: (fn) => database.read(fn),
    afterCommit: (effect) => pending.push(effect),
  };
}

export function contextOf(request: FastifyRequest, database: Database): UseCaseContext {
  return createUseCaseContext(database, request.actor, request.url);
}
