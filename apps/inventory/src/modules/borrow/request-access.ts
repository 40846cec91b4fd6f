import { and, eq, type SQL } from 'drizzle-orm';
import { canAny, companyCondition, isSuperAdmin, can, notFound, type Actor, type Queryable, type Tx, type UseCaseContext } from '@wms/platform';
import { borrowRequests, type BorrowRequestRow } from '../../db/schema/index.js';

/** Permission codes of the borrow flow (spec 5, contract §3). */
export const BORROW_APPLY = 'op_borrow_apply';
export const BORROW_APPROVAL = 'op_borrow_approval';
export const BORROW_DISPATCH = 'op_borrow_dispatch';
export const BORROW_RETURN = 'op_return:operation';

/** Approvers and dispatchers see every request of their company scope, everybody else their own. */
export function visibleRequests(ctx: UseCaseContext, company?: string): SQL | undefined {
  if (canAny(ctx.actor, [BORROW_APPROVAL, BORROW_DISPATCH])) return companyCondition(ctx.scope(company), borrowRequests.companyName);
  return and(eq(borrowRequests.applicantId, ctx.actor.id), companyCondition(ctx.scope(company), borrowRequests.companyName));
}

/** Requests of the caller's company scope, whoever applied (approval, dispatch, closing, withdrawal). */
export const requestsInScope = (ctx: UseCaseContext) => companyCondition(ctx.scope(), borrowRequests.companyName);

/** A privileged withdrawal (contract §3): SUPER_ADMIN or a holder of the flow's approval code. */
export const mayWithdrawForOthers = (actor: Actor) => isSuperAdmin(actor) || can(actor, BORROW_APPROVAL);

/** Locks one request; unknown, another company's, or not visible: 404. */
export async function lockRequest(tx: Tx, id: number, visible: SQL | undefined): Promise<BorrowRequestRow> {
  const [row] = await tx.select().from(borrowRequests).where(and(eq(borrowRequests.id, id), visible)).for('update');
  if (!row) throw notFound('借用申请');
  return row;
}

export async function readRequest(q: Queryable, id: number, visible: SQL | undefined): Promise<BorrowRequestRow> {
  const [row] = await q.select().from(borrowRequests).where(and(eq(borrowRequests.id, id), visible));
  if (!row) throw notFound('借用申请');
  return row;
}
