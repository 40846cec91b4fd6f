import type { FastifyRequest } from 'fastify';
import type { Queryable, Tx } from '@wms/platform';
import type { TrackingDeps } from '../../app-types.js';

/**
 * What a notification receiver works with. The receivers authenticate by X-API-Key, not by a user, so
 * there is no actor: the audit actor of their transaction is the operator's label (spec 4.1 rule 4),
 * chosen per message after the department check.
 */
export interface ReceiverContext {
  /** ORG_DEPARTMENT, trimmed and upper-cased. */
  readonly department: string;
  readonly now: Date;
  read<T>(fn: (q: Queryable) => Promise<T>): Promise<T>;
  /** One transaction whose writes the audit log attributes to `actorLabel`. */
  transactionAs<T>(actorLabel: string, fn: (tx: Tx) => Promise<T>): Promise<T>;
}

export function receiverContextOf(deps: TrackingDeps, request: FastifyRequest, now = new Date()): ReceiverContext {
  const { database, config } = deps;
  return {
    department: config.orgDepartment,
    now,
    read: (fn) => database.read(fn),
    transactionAs: (actorLabel, fn) =>
      database.transaction({ actor: actorLabel, company: config.orgDepartment, requestUrl: request.url }, fn),
  };
}
