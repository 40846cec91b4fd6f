import type { UseCaseContext } from '@wms/platform';
import { approveRequest, closeRequest, rejectRequest, withdrawRequest } from '../request-workflow/lifecycle.js';
import { borrowFlow } from './request-flow.js';

/** 0 → 1. */
export const approveBorrowRequest = (ctx: UseCaseContext, id: number) => approveRequest(ctx, borrowFlow, id);

/** 0 → 2 with a reason; the reservation is released through the shared routine. */
export const rejectBorrowRequest = (ctx: UseCaseContext, id: number, reason?: string | null) =>
  rejectRequest(ctx, borrowFlow, id, reason);

/**
 * 0 or 1 → 4 (withdrawn); the reservation is released. Somebody else's request is 403 NOT_OWNER unless
 * the caller is SUPER_ADMIN or a borrow approver.
 */
export const withdrawBorrowRequest = (ctx: UseCaseContext, id: number) => withdrawRequest(ctx, borrowFlow, id);

/** 1 → 4 (closed) by a borrow approver; the reservation is released. */
export const closeBorrowRequest = (ctx: UseCaseContext, id: number) => closeRequest(ctx, borrowFlow, id);
