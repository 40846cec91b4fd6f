import { and, eq, or, sql, type SQL } from 'drizzle-orm';
import { AppError, can, companyCondition, isSuperAdmin, type Actor, type UseCaseContext } from '@wms/platform';
import { scrapRequests, type ScrapRequestRow } from '../../db/schema/index.js';

/** Permission codes of the scrap flow (spec 5, contract §3). scrap_create:operation grants both of the first two. */
export const SCRAP_APPLY = 'scrap_apply';
export const SCRAP_EXECUTE = 'scrap_execute';
export const SCRAP_LIST = 'scrap_list';
export const SCRAP_LOSS_AMOUNT = 'scrap_list:loss_amount';
export const DEFECTIVE_SCRAP = 'defective_scrap';
export const BORROW_SCRAP = 'op_return:operation';

/**
 * POST /scrap/request takes borrow lines and ledger entries too: they need the codes of their own
 * submissions (/borrow/scrap-request, /inbound/stock/defective/<id>/scrap-request) there as well, so the
 * shared path is no way around them. Read by the request guard from the body before validation.
 */
export function sourcePermissions(body: unknown): string[] {
  const items = (body as { items?: unknown } | null)?.items;
  if (!Array.isArray(items)) return [];
  const tables = new Set(items.map((item: unknown) => (item as { source_table?: unknown } | null)?.source_table));
  return [...(tables.has('trans_borrow') ? [BORROW_SCRAP] : []), ...(tables.has('trans_defective_goods') ? [DEFECTIVE_SCRAP] : [])];
}

/**
 * Who sees which requests: executors (scrap_execute) every request of their company scope, everybody
 * else the requests they applied for or may approve (an approver must find what waits for them).
 */
export function visibleRequests(ctx: UseCaseContext, company?: string): SQL | undefined {
  const inScope = companyCondition(ctx.scope(company), scrapRequests.companyName);
  if (can(ctx.actor, SCRAP_EXECUTE)) return inScope;
  return and(inScope, or(eq(scrapRequests.applicantId, ctx.actor.id), sql`${ctx.actor.id} = any(${scrapRequests.allowedApprovers})`));
}

/** A privileged withdrawal (contract §3): SUPER_ADMIN or a holder of the flow's approval code, for scrap scrap_execute. */
export const mayWithdrawForOthers = (actor: Actor) => isSuperAdmin(actor) || can(actor, SCRAP_EXECUTE);

/**
 * Approval and rejection (spec 3.7, contract §3–§4): only a user in the request's allowed_approvers;
 * an empty list refuses everybody, SUPER_ADMIN included. Anybody else: 400 NOT_APPROVER (spec 7).
 */
export function assertAllowedApprover(actor: Actor, request: ScrapRequestRow): void {
  if (!request.allowedApprovers.includes(actor.id)) {
    const why = request.allowedApprovers.length === 0 ? '该报废申请没有可审批人' : '您不在该报废申请的可审批人之列';
    throw new AppError('NOT_APPROVER', `${why}，不能审批或驳回`, { allowed_approvers: request.allowedApprovers });
  }
}
