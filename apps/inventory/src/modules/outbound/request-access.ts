import { and, eq, type SQL } from 'drizzle-orm';
import { can, companyCondition, isSuperAdmin, type Actor, type UseCaseContext } from '@wms/platform';
import { outboundRequests } from '../../db/schema/index.js';

export const APPROVAL_PERMISSION = 'outbound_approval';

/**
 * Who sees which requests (contract §4 "outbound_approval, or own"): approvers see every request of their
 * company scope; everybody else, executors included, sees their own. Executors execute by request id
 * (the scan and POST /outbound name it), which needs no list. All of it within the caller's company
 * scope (spec 2.1): an account moved to another company no longer sees the requests it made in the old
 * one, as with borrow requests.
 */
export function visibleRequests(ctx: UseCaseContext, company?: string): SQL | undefined {
  if (can(ctx.actor, APPROVAL_PERMISSION)) return inCompanyScope(ctx, company);
  return ownRequests(ctx, company);
}

/** The caller's own requests within the caller's company scope. */
export const ownRequests = (ctx: UseCaseContext, company?: string): SQL | undefined => and(inCompanyScope(ctx, company), madeByCaller(ctx));

const inCompanyScope = (ctx: UseCaseContext, company?: string) => companyCondition(ctx.scope(company), outboundRequests.companyName);
const madeByCaller = (ctx: UseCaseContext) => eq(outboundRequests.applicantId, ctx.actor.id);

/** A privileged withdrawal (contract §3): SUPER_ADMIN or a holder of the flow's approval code. */
export const mayWithdrawForOthers = (actor: Actor) => isSuperAdmin(actor) || can(actor, APPROVAL_PERMISSION);
