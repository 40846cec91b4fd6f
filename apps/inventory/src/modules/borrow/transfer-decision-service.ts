import { and, asc, eq, inArray, isNull } from 'drizzle-orm';
import { AppError, companyCondition, forbidden, notFound, type Tx, type UseCaseContext } from '@wms/platform';
import { transBorrow, transBorrowTransfer, type TransBorrowRow, type TransBorrowTransferRow } from '../../db/schema/index.js';
import { lockLine } from './line-access.js';
import type { RejectAckBody, RejectAckResult, TransferView } from './schemas.js';
import { toTransferView, toTransferViewOf, userNamesOf } from './transfer-views.js';

const TRANSFER_STATUS_LABELS: Record<string, string> = { PENDING: '待接收', ACCEPTED: '已接收', REJECTED: '已拒绝' };

/**
 * Locks a transfer and its line, the line first (the order every borrow-line write uses). The transfer
 * must be the caller's to decide (403 NOT_RECEIVER) and still PENDING (400 STATUS_NOT_ALLOWED).
 */
async function lockPendingForReceiver(ctx: UseCaseContext, tx: Tx, id: number, verb: string) {
  const scope = companyCondition(ctx.scope(), transBorrowTransfer.companyName);
  const [seen] = await tx.select().from(transBorrowTransfer).where(and(eq(transBorrowTransfer.id, id), scope));
  if (!seen) throw notFound('转移记录');
  const line = await lockLine(tx, ctx.scope(), seen.borrowId);
  const [transfer] = await tx.select().from(transBorrowTransfer).where(eq(transBorrowTransfer.id, id)).for('update');
  if (transfer!.toUserId !== ctx.actor.id) throw new AppError('NOT_RECEIVER', `只有接收人可以${verb}该转移`);
  if (transfer!.status !== 'PENDING') {
    throw new AppError('STATUS_NOT_ALLOWED', `该转移${TRANSFER_STATUS_LABELS[transfer!.status] ?? `状态为 ${transfer!.status}`}，不能${verb}`, {
      status: transfer!.status,
    });
  }
  return { transfer: transfer!, line };
}

async function decide(tx: Tx, transfer: TransBorrowTransferRow, changes: Partial<TransBorrowTransferRow>): Promise<TransBorrowTransferRow> {
  const [decided] = await tx
    .update(transBorrowTransfer)
    .set(changes)
    .where(and(eq(transBorrowTransfer.id, transfer.id), eq(transBorrowTransfer.status, 'PENDING')))
    .returning();
  return decided!;
}

/**
 * POST /borrow/transfer/:id/accept (spec 3.5): the receiver becomes the holder of that one line; other
 * lines of the slip are untouched. A line no longer out with the initiator cannot change hands.
 */
export function acceptTransfer(ctx: UseCaseContext, id: number): Promise<TransferView> {
  return ctx.transaction(async (tx) => {
    const { transfer, line } = await lockPendingForReceiver(ctx, tx, id, '接收');
    if (line.status !== 'borrowed' || line.currentHolderId !== transfer.fromUserId) {
      throw new AppError('STATUS_NOT_ALLOWED', '该借用记录已不在发起人手中，不能接收；请拒绝该转移', { borrow_id: line.id });
    }
    const accepted = await decide(tx, transfer, { status: 'ACCEPTED', decidedAt: ctx.now });
    await tx
      .update(transBorrow)
      .set({ currentHolderId: transfer.toUserId, updatedAt: ctx.now })
      .where(and(eq(transBorrow.id, line.id), eq(transBorrow.status, 'borrowed'), eq(transBorrow.currentHolderId, transfer.fromUserId)));
    return toTransferViewOf(tx, accepted, line);
  });
}

/** POST /borrow/transfer/:id/reject (spec 3.5): the holder stays; the initiator is told until they acknowledge. */
export function rejectTransfer(ctx: UseCaseContext, id: number, reason?: string | null): Promise<TransferView> {
  return ctx.transaction(async (tx) => {
    const { transfer, line } = await lockPendingForReceiver(ctx, tx, id, '拒绝');
    const rejected = await decide(tx, transfer, { status: 'REJECTED', reason: reason?.trim() || null, decidedAt: ctx.now, rejectSeenAt: null });
    return toTransferViewOf(tx, rejected, line);
  });
}

/**
 * POST /borrow/transfer/reject-ack (spec 3.5): the initiator acknowledges rejections; reject_seen_at is
 * set where it is still null, so a repeat is a no-op. Only the initiator's own REJECTED transfers.
 */
export function acknowledgeRejections(ctx: UseCaseContext, input: RejectAckBody): Promise<RejectAckResult> {
  const ids = [...new Set(input.transfer_ids)];
  return ctx.transaction(async (tx) => {
    const scope = companyCondition(ctx.scope(), transBorrowTransfer.companyName);
    const rows = await tx.select().from(transBorrowTransfer).where(and(inArray(transBorrowTransfer.id, ids), scope));
    const found = new Map(rows.map((row) => [row.id, row]));
    const missing = ids.find((id) => !found.has(id));
    if (missing !== undefined) throw new AppError('NOT_FOUND', `转移记录不存在: ${missing}`, { transfer_id: missing });
    const others = rows.find((row) => row.fromUserId !== ctx.actor.id);
    if (others) throw forbidden(`只能确认自己发起的转移（${others.id}）`);
    const notRejected = rows.find((row) => row.status !== 'REJECTED');
    if (notRejected) {
      throw new AppError('STATUS_NOT_ALLOWED', `转移 ${notRejected.id} 未被拒绝，无需确认`, { transfer_id: notRejected.id, status: notRejected.status });
    }
    const acknowledged = await tx
      .update(transBorrowTransfer)
      .set({ rejectSeenAt: ctx.now })
      .where(
        and(
          inArray(transBorrowTransfer.id, ids),
          eq(transBorrowTransfer.fromUserId, ctx.actor.id),
          eq(transBorrowTransfer.status, 'REJECTED'),
          isNull(transBorrowTransfer.rejectSeenAt),
        ),
      )
      .returning({ id: transBorrowTransfer.id });
    const after = await tx.select().from(transBorrowTransfer).where(inArray(transBorrowTransfer.id, ids)).orderBy(asc(transBorrowTransfer.id));
    const lines = await linesOf(tx, after.map((row) => row.borrowId));
    const names = await userNamesOf(tx, after.flatMap((row) => [row.fromUserId, row.toUserId]));
    return { acknowledged: acknowledged.length, items: after.map((row) => toTransferView(row, lines.get(row.borrowId)!, names)) };
  });
}

async function linesOf(tx: Tx, ids: number[]): Promise<Map<number, TransBorrowRow>> {
  const rows = ids.length ? await tx.select().from(transBorrow).where(inArray(transBorrow.id, [...new Set(ids)])) : [];
  return new Map(rows.map((row) => [row.id, row]));
}
