import { AppError, type UseCaseContext } from '@wms/platform';
import { releaseReservation } from '../reservation/index.js';
import { lockRequest, mayWithdrawForOthers, requestsInScope } from './request-access.js';
import { toRequestViewOf } from './request-views.js';
import { assertMayMove, moveRequest } from './transitions.js';
import type { BorrowRequestView } from './schemas.js';

/** 0 → 1. */
export function approveBorrowRequest(ctx: UseCaseContext, id: number): Promise<BorrowRequestView> {
  return ctx.transaction(async (tx) => {
    const request = await lockRequest(tx, id, requestsInScope(ctx));
    const moved = await moveRequest(tx, request, 'approve', { approverId: ctx.actor.id, approvedAt: ctx.now }, ctx.now);
    return toRequestViewOf(tx, moved);
  });
}

/** 0 → 2 with a reason; the reservation is released through the shared routine. */
export function rejectBorrowRequest(ctx: UseCaseContext, id: number, reason?: string | null): Promise<BorrowRequestView> {
  return ctx.transaction(async (tx) => {
    const request = await lockRequest(tx, id, requestsInScope(ctx));
    assertMayMove(request, 'reject');
    const lines = await releaseReservation(tx, request.itemsJson);
    const moved = await moveRequest(
      tx,
      request,
      'reject',
      { itemsJson: lines, rejectReason: reason?.trim() || null, approverId: ctx.actor.id, rejectedAt: ctx.now },
      ctx.now,
    );
    return toRequestViewOf(tx, moved);
  });
}

/**
 * 0 or 1 → 4 (withdrawn); the reservation is released. The applicant's path: somebody else's request
 * is 403 NOT_OWNER unless the caller is privileged (SUPER_ADMIN or a borrow approver).
 */
export function withdrawBorrowRequest(ctx: UseCaseContext, id: number): Promise<BorrowRequestView> {
  return ctx.transaction(async (tx) => {
    const request = await lockRequest(tx, id, requestsInScope(ctx));
    if (request.applicantId !== ctx.actor.id && !mayWithdrawForOthers(ctx.actor)) {
      throw new AppError('NOT_OWNER', '只能撤回自己提交的借用申请');
    }
    assertMayMove(request, 'withdraw');
    const lines = await releaseReservation(tx, request.itemsJson);
    const moved = await moveRequest(
      tx,
      request,
      'withdraw',
      { itemsJson: lines, closeReason: 'withdrawn', closerId: ctx.actor.id, closedAt: ctx.now },
      ctx.now,
    );
    return toRequestViewOf(tx, moved);
  });
}

/** 1 → 4 (closed) by a borrow approver; the reservation is released. */
export function closeBorrowRequest(ctx: UseCaseContext, id: number): Promise<BorrowRequestView> {
  return ctx.transaction(async (tx) => {
    const request = await lockRequest(tx, id, requestsInScope(ctx));
    assertMayMove(request, 'close');
    const lines = await releaseReservation(tx, request.itemsJson);
    const moved = await moveRequest(
      tx,
      request,
      'close',
      { itemsJson: lines, closeReason: 'closed', closerId: ctx.actor.id, closedAt: ctx.now },
      ctx.now,
    );
    return toRequestViewOf(tx, moved);
  });
}
