import { eq, type SQL } from 'drizzle-orm';
import { can, companyCondition, isSuperAdmin, type Actor, type UseCaseContext } from '@wms/platform';
import { outboundRequests } from '../../db/schema/index.js';

export const APPROVAL_PERMISSION = 'outbound_approval';

/**
 * Who sees which requests (contract §4 "outbound_approval, or own"): approvers see every request
 * of their company scope, everybody else only the requests they applied for.
 */
export function visibleRequests(ctx: UseCaseContext, company?: string): SQL | undefined {
  if (can(ctx.actor, APPROVAL_PERMISSION)) return companyCondition(ctx.scope(company), outboundRequests.companyName);
  return eq(outboundRequests.applicantId, ctx.actor.id);
}

/** A privileged withdrawal (contract §3): SUPER_ADMIN or a holder of the flow's approval code. */
export const mayWithdrawForOthers = (actor: Actor) => isSuperAdmin(actor) || can(actor, APPROVAL_PERMISSION);
