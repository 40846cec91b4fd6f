import { and, eq, type SQL } from 'drizzle-orm';
import { can, companyCondition, isSuperAdmin, notFound, type Actor, type Queryable, type Tx, type UseCaseContext } from '@wms/platform';
import { outboundRequests, type OutboundRequestRow } from '../../db/schema/index.js';

export const APPROVAL_PERMISSION = 'outbound_approval';

/**
 * Who sees which requests (contract §4 "outbound_approval, or own"): approvers see every request
 * of their company scope, everybody else only the requests they applied for.
 */
export function visibleRequests(ctx: UseCaseContext, company?: string): SQL | undefined {
  if (can(ctx.actor, APPROVAL_PERMISSION)) return companyCondition(ctx.scope(company), outboundRequests.companyName);
  return eq(outboundRequests.applicantId, ctx.actor.id);
}

/** Requests of the caller's company scope, whoever applied (approval, execution, closing, scanning). */
export const requestsInScope = (ctx: UseCaseContext) => companyCondition(ctx.scope(), outboundRequests.companyName);

/** A privileged withdrawal (contract §3): SUPER_ADMIN or a holder of the flow's approval code. */
export const mayWithdrawForOthers = (actor: Actor) => isSuperAdmin(actor) || can(actor, APPROVAL_PERMISSION);

/** Locks one request; unknown, another company's, or not visible: 404. */
export async function lockRequest(tx: Tx, id: number, visible: SQL | undefined): Promise<OutboundRequestRow> {
  const [row] = await tx.select().from(outboundRequests).where(and(eq(outboundRequests.id, id), visible)).for('update');
  if (!row) throw notFound('出库申请');
  return row;
}

export async function readRequest(q: Queryable, id: number, visible: SQL | undefined): Promise<OutboundRequestRow> {
  const [row] = await q.select().from(outboundRequests).where(and(eq(outboundRequests.id, id), visible));
  if (!row) throw notFound('出库申请');
  return row;
}
