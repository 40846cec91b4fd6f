import { and, eq, or, type SQL } from 'drizzle-orm';
import { can, companyCondition, isSuperAdmin, type Actor, type UseCaseContext } from '@wms/platform';
import { outboundRequests } from '../../db/schema/index.js';

export const APPROVAL_PERMISSION = 'outbound_approval';
export const EXECUTE_PERMISSION = 'outbound_create:operation';

/**
 * Who sees which requests (contract §4 "outbound_approval, or own"; decisions, Outbound): approvers see
 * every request of their company scope; executors (outbound_create:operation) also see their company's
 * approved requests, their work queue, as dispatchers see borrow requests; everybody sees their own. All of
 * it within the caller's company scope (spec 2.1): an account moved to another company no longer sees the
 * requests it made in the old one, as with borrow requests.
 */
export function visibleRequests(ctx: UseCaseContext, company?: string): SQL | undefined {
  const inScope = companyCondition(ctx.scope(company), outboundRequests.companyName);
  if (can(ctx.actor, APPROVAL_PERMISSION)) return inScope;
  const own = eq(outboundRequests.applicantId, ctx.actor.id);
  if (can(ctx.actor, EXECUTE_PERMISSION)) return and(inScope, or(own, eq(outboundRequests.status, 1)));
  return and(inScope, own);
}

/** The caller's own requests within the caller's company scope. */
export const ownRequests = (ctx: UseCaseContext, company?: string): SQL | undefined =>
  and(companyCondition(ctx.scope(company), outboundRequests.companyName), eq(outboundRequests.applicantId, ctx.actor.id));

/** A privileged withdrawal (contract §3): SUPER_ADMIN or a holder of the flow's approval code. */
export const mayWithdrawForOthers = (actor: Actor) => isSuperAdmin(actor) || can(actor, APPROVAL_PERMISSION);
