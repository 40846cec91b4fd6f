import type { UseCaseContext } from '@wms/platform';
import { approveRequest, rejectRequest, withdrawRequest } from '../request-workflow/lifecycle.js';
import { scrapFlow } from './request-flow.js';

/** 0 → 1, only by a user in allowed_approvers (400 NOT_APPROVER otherwise; empty list: nobody). */
export const approveScrapRequest = (ctx: UseCaseContext, id: number) => approveRequest(ctx, scrapFlow, id);

/** 0 → 2 with an optional reason, by an allowed approver; what the request reserved is released. */
export const rejectScrapRequest = (ctx: UseCaseContext, id: number, reason?: string | null) => rejectRequest(ctx, scrapFlow, id, reason);

/**
 * 0 or 1 → 4 (withdrawn); what the request reserved is released. The applicant's path; somebody else's
 * request is 403 NOT_OWNER unless the caller is SUPER_ADMIN or holds scrap_execute (privileged path).
 */
export const withdrawScrapRequest = (ctx: UseCaseContext, id: number) => withdrawRequest(ctx, scrapFlow, id);
