import { and, count, desc, eq, isNull } from 'drizzle-orm';
import { toQuantityOrZero, type UseCaseContext } from '@wms/platform';
import { transBorrow, transBorrowTransfer, users } from '../../db/schema/index.js';
import { receiverCanDecide } from './line-access.js';
import type { PendingCountView } from './schemas.js';

/**
 * GET /borrow/transfer/pending-count (spec 4.3): how many transfers wait for the caller (one count
 * query) and the caller's rejected transfers not yet acknowledged (one query, with material and
 * receiver names). A caller with nothing gets 0 and []. Transfers of a company the caller has left are
 * not counted: they cannot be decided from here.
 */
export function pendingTransferCount(ctx: UseCaseContext): Promise<PendingCountView> {
  return ctx.read(async (q) => {
    const [waiting] = await q
      .select({ n: count() })
      .from(transBorrowTransfer)
      .where(and(eq(transBorrowTransfer.toUserId, ctx.actor.id), eq(transBorrowTransfer.status, 'PENDING'), receiverCanDecide));
    const rejects = await q
      .select({
        id: transBorrowTransfer.id,
        borrowId: transBorrowTransfer.borrowId,
        borrowNo: transBorrow.borrowNo,
        materialName: transBorrow.materialName,
        toUserId: transBorrowTransfer.toUserId,
        receiverName: users.name,
        quantity: transBorrowTransfer.quantity,
        reason: transBorrowTransfer.reason,
        decidedAt: transBorrowTransfer.decidedAt,
      })
      .from(transBorrowTransfer)
      .innerJoin(transBorrow, eq(transBorrow.id, transBorrowTransfer.borrowId))
      .innerJoin(users, eq(users.id, transBorrowTransfer.toUserId))
      .where(
        and(
          eq(transBorrowTransfer.fromUserId, ctx.actor.id),
          eq(transBorrowTransfer.status, 'REJECTED'),
          isNull(transBorrowTransfer.rejectSeenAt),
        ),
      )
      .orderBy(desc(transBorrowTransfer.decidedAt), desc(transBorrowTransfer.id));
    return {
      count: waiting?.n ?? 0,
      rejects: rejects.map((row) => ({
        id: row.id,
        borrow_id: row.borrowId,
        borrow_no: row.borrowNo,
        material_name: row.materialName,
        to_user_id: row.toUserId,
        receiver_name: row.receiverName,
        quantity: toQuantityOrZero(row.quantity),
        reason: row.reason,
        decided_at: row.decidedAt ? row.decidedAt.toISOString() : null,
      })),
    };
  });
}
