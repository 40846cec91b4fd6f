import { and, eq } from 'drizzle-orm';
import { AppError, type Tx } from '@wms/platform';
import { PURCHASE_STATUS, purchaseRequests, type PurchaseRequestRow, type PurchaseStatus } from '../../db/schema/index.js';

/** Display labels of the purchase request status (contract §4; also the audit enum labels). */
export const PURCHASE_STATUS_LABELS: Record<PurchaseStatus, string> = { 0: '待审批', 1: '已审批', 2: '已驳回', 3: '已完成', 4: '已完结' };
export const purchaseStatusLabel = (status: number) => PURCHASE_STATUS_LABELS[status as PurchaseStatus] ?? String(status);

/** The decisions a purchaser takes (PATCH …/approve, batch-approve); anything else is 400. */
export const PURCHASE_DECISIONS = ['approve', 'reject', 'close'] as const;
export type PurchaseDecision = (typeof PURCHASE_DECISIONS)[number];
export type PurchaseMove = PurchaseDecision | 'complete';

/**
 * Every move of a purchase request (spec 3.6, contract §4); nothing else changes a status.
 * complete is the stock-in naming the request; 2 and 3 and 4 are final.
 */
export const PURCHASE_TRANSITIONS: Readonly<Record<PurchaseMove, { from: readonly PurchaseStatus[]; to: PurchaseStatus; verb: string }>> = {
  approve: { from: [PURCHASE_STATUS.pending], to: PURCHASE_STATUS.approved, verb: '审批' },
  reject: { from: [PURCHASE_STATUS.pending], to: PURCHASE_STATUS.rejected, verb: '驳回' },
  close: { from: [PURCHASE_STATUS.approved], to: PURCHASE_STATUS.closed, verb: '关闭' },
  complete: { from: [PURCHASE_STATUS.approved], to: PURCHASE_STATUS.completed, verb: '入库' },
};

/** The refusal of a move the request's status does not allow (400 STATUS_NOT_ALLOWED with `status`). */
export function moveRefusal(request: Pick<PurchaseRequestRow, 'requestNo' | 'status'>, move: PurchaseMove): AppError | null {
  const transition = PURCHASE_TRANSITIONS[move];
  if ((transition.from as readonly number[]).includes(request.status)) return null;
  return new AppError(
    'STATUS_NOT_ALLOWED',
    `采购申请 ${request.requestNo} 当前状态为「${purchaseStatusLabel(request.status)}」，不能${transition.verb}`,
    { status: request.status },
  );
}

export type PurchaseChanges = Partial<Pick<PurchaseRequestRow,
  'approverId' | 'approvedAt' | 'rejectedAt' | 'closedAt' | 'completedAt' | 'decisionReason'>>;

/**
 * Moves the request with `UPDATE … WHERE status = :from RETURNING` (the caller holds the row lock;
 * the guard still refuses a move whose status changed since the row was read).
 */
export async function movePurchase(tx: Tx, request: PurchaseRequestRow, move: PurchaseMove, changes: PurchaseChanges, now: Date): Promise<PurchaseRequestRow> {
  const refusal = moveRefusal(request, move);
  if (refusal) throw refusal;
  const [moved] = await tx
    .update(purchaseRequests)
    .set({ ...changes, status: PURCHASE_TRANSITIONS[move].to, updatedAt: now })
    .where(and(eq(purchaseRequests.id, request.id), eq(purchaseRequests.status, request.status)))
    .returning();
  if (!moved) throw new AppError('STATUS_NOT_ALLOWED', `采购申请 ${request.requestNo} 状态已被他人修改，不能${PURCHASE_TRANSITIONS[move].verb}`);
  return moved;
}

/** What a decision writes besides the status. */
export function decisionChanges(move: PurchaseDecision, actorId: number, now: Date, reason: string | null): PurchaseChanges {
  switch (move) {
    case 'approve':
      return { approverId: actorId, approvedAt: now };
    case 'reject':
      return { approverId: actorId, rejectedAt: now, decisionReason: reason };
    case 'close':
      return { closedAt: now, decisionReason: reason };
  }
}
