import { and, eq } from 'drizzle-orm';
import { AppError, type Tx } from '@wms/platform';
import { BORROW_STATUS, borrowRequests, type BorrowRequestRow, type BorrowStatus } from '../../db/schema/index.js';
import { statusLabel } from './request-status.js';

const { pending, approved, rejected, dispatched, finished } = BORROW_STATUS;

/** Every move of a borrow request (spec 3.3, contract §4). Nothing else changes a status. */
export const BORROW_TRANSITIONS = {
  approve: { from: [pending], to: approved, verb: '审批' },
  reject: { from: [pending], to: rejected, verb: '驳回' },
  withdraw: { from: [pending, approved], to: finished, verb: '撤回' },
  close: { from: [approved], to: finished, verb: '关闭' },
  dispatch: { from: [approved], to: dispatched, verb: '借出' },
} as const satisfies Record<string, { from: readonly BorrowStatus[]; to: BorrowStatus; verb: string }>;

export type BorrowAction = keyof typeof BORROW_TRANSITIONS;

/** 400 STATUS_NOT_ALLOWED unless the action may start from the request's current status. */
export function assertMayMove(request: BorrowRequestRow, action: BorrowAction): void {
  const transition = BORROW_TRANSITIONS[action];
  if (!(transition.from as readonly number[]).includes(request.status)) {
    throw new AppError('STATUS_NOT_ALLOWED', `借用申请当前状态为「${statusLabel(request.status)}」，不能${transition.verb}`, {
      status: request.status,
    });
  }
}

type RequestChanges = Partial<Omit<typeof borrowRequests.$inferInsert, 'id' | 'status' | 'createdAt'>>;

/**
 * Moves the request with `UPDATE … WHERE status = :from RETURNING`: if the status changed since it was
 * read, nothing is written and the caller gets 400 STATUS_NOT_ALLOWED (never a second release).
 */
export async function moveRequest(
  tx: Tx,
  request: BorrowRequestRow,
  action: BorrowAction,
  changes: RequestChanges,
  now: Date,
): Promise<BorrowRequestRow> {
  assertMayMove(request, action);
  const [moved] = await tx
    .update(borrowRequests)
    .set({ ...changes, status: BORROW_TRANSITIONS[action].to, updatedAt: now })
    .where(and(eq(borrowRequests.id, request.id), eq(borrowRequests.status, request.status)))
    .returning();
  if (!moved) throw new AppError('STATUS_NOT_ALLOWED', `借用申请状态已被他人修改，不能${BORROW_TRANSITIONS[action].verb}`);
  return moved;
}
