import { and, eq, type SQL } from 'drizzle-orm';
import { canAny, companyCondition, isSuperAdmin, can, type Actor, type UseCaseContext } from '@wms/platform';
import { borrowRequests } from '../../db/schema/index.js';

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

/** A privileged withdrawal (contract §3): SUPER_ADMIN or a holder of the flow's approval code. */
export const mayWithdrawForOthers = (actor: Actor) => isSuperAdmin(actor) || can(actor, BORROW_APPROVAL);
