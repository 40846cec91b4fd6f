import { AppError, type Tx, type UseCaseContext } from '@wms/platform';
import { releaseReservation } from '../reservation/index.js';
import { lockRequest, requestsInScope } from './request-access.js';
import type { AnyRequestRow, DecisionAction, RequestFlow } from './request-flow.js';
import { assertMayMove, moveRequest, type RequestChanges } from './transitions.js';

/**
 * The decision use cases every request flow shares (spec 3.2, 3.3; contract §3, §4). Each locks the
 * request in the caller's company scope (else 404), moves it with the guarded update and answers its
 * view; the permission code is the route's. Every move away from a reserving status releases the
 * reservation through the one shared routine, exactly once (the lock and the status guard).
 */

/** 0 → 1; a flow with named approvers refuses anybody else first (flow.assertMayDecide). */
export function approveRequest<Row extends AnyRequestRow, View>(ctx: UseCaseContext, flow: RequestFlow<Row, View>, id: number): Promise<View> {
  return decide(ctx, flow, id, (tx, request) => {
    flow.assertMayDecide?.(ctx.actor, request);
    return moveRequest(tx, flow, request, 'approve', { approverId: ctx.actor.id, approvedAt: ctx.now }, ctx.now);
  });
}

/** 0 → 2 with an optional reason; the reservation is released. Named approvers as for approval. */
export function rejectRequest<Row extends AnyRequestRow, View>(
  ctx: UseCaseContext,
  flow: RequestFlow<Row, View>,
  id: number,
  reason?: string | null,
): Promise<View> {
  return decide(ctx, flow, id, (tx, request) => {
    flow.assertMayDecide?.(ctx.actor, request);
    return releaseAndMove(tx, flow, request, 'reject', { rejectReason: reason?.trim() || null, approverId: ctx.actor.id, rejectedAt: ctx.now }, ctx.now);
  });
}

/**
 * 0 or 1 → 4 (withdrawn); the reservation is released. The applicant's path: somebody else's request
 * is 403 NOT_OWNER unless the caller is privileged (flow.mayWithdrawForOthers).
 */
export function withdrawRequest<Row extends AnyRequestRow, View>(ctx: UseCaseContext, flow: RequestFlow<Row, View>, id: number): Promise<View> {
  return decide(ctx, flow, id, (tx, request) => {
    if (request.applicantId !== ctx.actor.id && !flow.mayWithdrawForOthers(ctx.actor)) {
      throw new AppError('NOT_OWNER', `只能撤回自己提交的${flow.noun}`);
    }
    return releaseAndMove(tx, flow, request, 'withdraw', { closeReason: 'withdrawn', closerId: ctx.actor.id, closedAt: ctx.now }, ctx.now);
  });
}

/** 1 → 4 (closed); the reservation is released. */
export function closeRequest<Row extends AnyRequestRow, View>(ctx: UseCaseContext, flow: RequestFlow<Row, View>, id: number): Promise<View> {
  return decide(ctx, flow, id, (tx, request) =>
    releaseAndMove(tx, flow, request, 'close', { closeReason: 'closed', closerId: ctx.actor.id, closedAt: ctx.now }, ctx.now),
  );
}

/** One transaction: lock the request in scope, apply the move, answer the moved request's view. */
function decide<Row extends AnyRequestRow, View>(
  ctx: UseCaseContext,
  flow: RequestFlow<Row, View>,
  id: number,
  move: (tx: Tx, request: Row) => Promise<Row>,
): Promise<View> {
  return ctx.transaction(async (tx) => {
    const request = await lockRequest(tx, flow, id, requestsInScope(ctx, flow));
    return flow.toViewOf(tx, await move(tx, request));
  });
}

/** Checks the move first (nothing is released for a refused move), then releases and moves. */
async function releaseAndMove<Row extends AnyRequestRow>(
  tx: Tx,
  flow: RequestFlow<Row, unknown>,
  request: Row,
  action: DecisionAction,
  changes: Omit<RequestChanges, 'itemsJson'>,
  now: Date,
): Promise<Row> {
  assertMayMove(flow, request, action);
  const lines = await releaseReservation(tx, request.itemsJson);
  return moveRequest(tx, flow, request, action, { ...changes, itemsJson: lines }, now);
}
