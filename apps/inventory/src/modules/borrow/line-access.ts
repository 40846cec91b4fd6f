import { and, eq, not, sql } from 'drizzle-orm';
import { AppError, companyCondition, Decimal, notFound, toQuantityOrZero, type Actor, type CompanyScope, type Queryable, type Tx } from '@wms/platform';
import { transBorrow, transBorrowTransfer, users, type TransBorrowRow, type TransBorrowTransferRow } from '../../db/schema/index.js';

export const LINE_STATUS_LABELS: Record<string, string> = { borrowed: '借用中', returned: '已归还', scrapped: '已报废' };

/** What is still out on a line: quantity − returned_quantity. */
export const pendingQuantityOf = (line: TransBorrowRow): Decimal => new Decimal(line.quantity).minus(line.returnedQuantity);

/** Locks one borrow line of the caller's scope; unknown or another company's: 404. */
export async function lockLine(tx: Tx, scope: CompanyScope, id: number): Promise<TransBorrowRow> {
  const [line] = await tx
    .select()
    .from(transBorrow)
    .where(and(eq(transBorrow.id, id), companyCondition(scope, transBorrow.companyName)))
    .for('update');
  if (!line) throw notFound('借用记录');
  return line;
}

export async function readLine(q: Queryable, scope: CompanyScope, id: number): Promise<TransBorrowRow> {
  const [line] = await q.select().from(transBorrow).where(and(eq(transBorrow.id, id), companyCondition(scope, transBorrow.companyName)));
  if (!line) throw notFound('借用记录');
  return line;
}

/** 400 STATUS_NOT_ALLOWED unless the line is still out (returned and scrapped lines are history). */
export function assertBorrowed(line: TransBorrowRow, verb: string): void {
  if (line.status !== 'borrowed') {
    throw new AppError('STATUS_NOT_ALLOWED', `借用记录状态为「${LINE_STATUS_LABELS[line.status] ?? line.status}」，不能${verb}`, {
      status: line.status,
    });
  }
}

/** 403 NOT_HOLDER unless the caller holds the line now: nobody hands on or returns what they do not hold. */
export function assertHolder(line: TransBorrowRow, actor: Actor, verb: string): void {
  if (line.currentHolderId !== actor.id) {
    throw new AppError('NOT_HOLDER', `您不是该借用物品的当前持有人，不能${verb}`, { current_holder_id: line.currentHolderId });
  }
}

/** Why a transfer was closed without its receiver: they can no longer decide it. */
export const RECEIVER_GONE_REASON = '接收人已停用，转移自动取消';

/** The receiver can still decide a transfer: an active user of the transfer's (the line's) company. */
export const receiverCanDecide = sql`exists (select 1 from ${users} u
  where u.id = ${transBorrowTransfer.toUserId} and u.active and u.company_name = ${transBorrowTransfer.companyName})`;

export async function pendingTransferOf(q: Queryable, lineId: number): Promise<TransBorrowTransferRow | undefined> {
  const [pending] = await q
    .select()
    .from(transBorrowTransfer)
    .where(and(eq(transBorrowTransfer.borrowId, lineId), eq(transBorrowTransfer.status, 'PENDING')));
  return pending;
}

/**
 * 400 STATUS_NOT_ALLOWED while a transfer of the line waits for its receiver. A PENDING transfer whose
 * receiver was deactivated or moved to another company can never be decided, so it would block the line
 * for good: it is closed here as REJECTED (reject_seen_at null, so the initiator is told through
 * pending-count) and the caller carries on. The caller holds the line lock, which every decision takes
 * first, so nobody decides the transfer meanwhile.
 */
export async function assertNoPendingTransfer(tx: Tx, line: TransBorrowRow, verb: string, at: Date): Promise<void> {
  const pending = await pendingTransferOf(tx, line.id);
  if (!pending) return;
  const closed = await tx
    .update(transBorrowTransfer)
    .set({ status: 'REJECTED', reason: RECEIVER_GONE_REASON, decidedAt: at, rejectSeenAt: null })
    .where(and(eq(transBorrowTransfer.id, pending.id), eq(transBorrowTransfer.status, 'PENDING'), not(receiverCanDecide)))
    .returning({ id: transBorrowTransfer.id });
  if (closed.length > 0) return;
  throw new AppError('STATUS_NOT_ALLOWED', `该借用记录有待对方处理的转移，不能${verb}；请等待对方接收或拒绝`, {
    transfer_id: pending.id,
    to_user_id: pending.toUserId,
  });
}

/** 400 QUANTITY_EXCEEDS when more than what is still out is named. */
export function quantityExceeds(line: TransBorrowRow, asked: Decimal, what: string): AppError {
  const pending = toQuantityOrZero(pendingQuantityOf(line).toString());
  return new AppError('QUANTITY_EXCEEDS', `${what}数量 ${asked.toString()} 超过未归还数量 ${pending}`, {
    pending_quantity: pending,
    quantity: toQuantityOrZero(asked.toString()),
  });
}

/**
 * An active user of `company` by id (borrower at dispatch, receiver of a transfer). An unknown id or
 * another company's user is 404 (contract §3), an inactive one 400, both naming the field. The name is
 * always the user table's (spec 2.6).
 */
export async function activeUserOf(q: Queryable, company: string, userId: number, field: string): Promise<{ id: number; name: string }> {
  const [user] = await q
    .select({ id: users.id, name: users.name, active: users.active })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.companyName, company)));
  if (!user) throw new AppError('NOT_FOUND', `用户 ${userId} 不存在或不属于公司 ${company}`, { field, user_id: userId });
  if (!user.active) throw new AppError('VALIDATION_FAILED', `用户 ${userId} 已停用`, { field, user_id: userId });
  return { id: user.id, name: user.name };
}
