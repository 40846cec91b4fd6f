import type { UseCaseContext } from '@wms/platform';
import { approveRequest, closeRequest, rejectRequest, withdrawRequest } from '../request-workflow/lifecycle.js';
import { outboundFlow } from './request-flow.js';

/** 0 → 1. */
export const approveOutboundRequest = (ctx: UseCaseContext, id: number) => approveRequest(ctx, outboundFlow, id);

/** 0 → 2 with a reason; the reservation is released. */
export const rejectOutboundRequest = (ctx: UseCaseContext, id: number, reason?: string | null) =>
  rejectRequest(ctx, outboundFlow, id, reason);

/**
 * 0 or 1 → 4 (withdrawn); the reservation is released. Somebody else's request is 403 NOT_OWNER unless
 * the caller is SUPER_ADMIN or an outbound approver.
 */
export const withdrawOutboundRequest = (ctx: UseCaseContext, id: number) => withdrawRequest(ctx, outboundFlow, id);

/** 1 → 4 (closed) by the warehouse; the reservation is released. */
export const closeOutboundRequest = (ctx: UseCaseContext, id: number) => closeRequest(ctx, outboundFlow, id);
