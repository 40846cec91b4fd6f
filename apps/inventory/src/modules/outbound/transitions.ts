import { and, eq } from 'drizzle-orm';
import { AppError, type Tx } from '@wms/platform';
import {
  OUTBOUND_STATUS,
  outboundRequests,
  type OutboundRequestRow,
  type OutboundStatus,
} from '../../db/schema/index.js';
import { statusLabel } from './request-status.js';

const { pending, approved, rejected, executed, finished } = OUTBOUND_STATUS;

/**
 * Every move of an outbound request (spec 3.2, contract §4). Nothing else changes a status.
 * Submission creates status 0 (a reissue from a return is created at 1 by the returns flow).
 */
export const REQUEST_TRANSITIONS = {
  approve: { from: [pending], to: approved, verb: '审批' },
  reject: { from: [pending], to: rejected, verb: '驳回' },
  withdraw: { from: [pending, approved], to: finished, verb: '撤回' },
  close: { from: [approved], to: finished, verb: '关闭' },
  execute: { from: [approved], to: executed, verb: '出库' },
} as const satisfies Record<string, { from: readonly OutboundStatus[]; to: OutboundStatus; verb: string }>;

export type RequestAction = keyof typeof REQUEST_TRANSITIONS;

/** 400 STATUS_NOT_ALLOWED unless the action may start from the request's current status. */
export function assertMayMove(request: OutboundRequestRow, action: RequestAction): void {
  const transition = REQUEST_TRANSITIONS[action];
  if (!(transition.from as readonly number[]).includes(request.status)) {
    throw new AppError(
      'STATUS_NOT_ALLOWED',
      `出库申请当前状态为「${statusLabel(request.status)}」，不能${transition.verb}`,
      { status: request.status },
    );
  }
}

type RequestChanges = Partial<Omit<typeof outboundRequests.$inferInsert, 'id' | 'status' | 'createdAt'>>;

/**
 * Moves the request with `UPDATE … WHERE status = :from RETURNING`: if the status changed since it was
 * read, nothing is written and the caller gets 400 STATUS_NOT_ALLOWED (never a second release).
 */
export async function moveRequest(
  tx: Tx,
  request: OutboundRequestRow,
  action: RequestAction,
  changes: RequestChanges,
  now: Date,
): Promise<OutboundRequestRow> {
  assertMayMove(request, action);
  const [moved] = await tx
    .update(outboundRequests)
    .set({ ...changes, status: REQUEST_TRANSITIONS[action].to, updatedAt: now })
    .where(and(eq(outboundRequests.id, request.id), eq(outboundRequests.status, request.status)))
    .returning();
  if (!moved) {
    throw new AppError('STATUS_NOT_ALLOWED', `出库申请状态已被他人修改，不能${REQUEST_TRANSITIONS[action].verb}`);
  }
  return moved;
}
