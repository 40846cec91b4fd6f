import { AppError, Decimal, toQuantityOrZero, type UseCaseContext } from '@wms/platform';
import { transBorrowTransfer } from '../../db/schema/index.js';
import { activeUserOf, assertBorrowed, assertHolder, assertNoPendingTransfer, lockLine, pendingQuantityOf } from './line-access.js';
import type { TransferBody, TransferView } from './schemas.js';
import { toTransferViewOf } from './transfer-views.js';

/**
 * POST /borrow/:id/transfer (spec 3.5): the current holder offers the whole line to another active user
 * of the company. Nothing moves yet: the holder and the stock stay as they are until the receiver
 * accepts. A part of a line cannot be offered (400 SPLIT_REQUIRED: split the line first); a line has at
 * most one PENDING transfer (the line lock serialises the check; a partial unique index backs it).
 */
export function initiateTransfer(ctx: UseCaseContext, id: number, input: TransferBody): Promise<TransferView> {
  return ctx.transaction(async (tx) => {
    const line = await lockLine(tx, ctx.scope(), id);
    assertBorrowed(line, '转移');
    assertHolder(line, ctx.actor, '转移');
    // decisions, Borrow 4: a pending transfer is named before any quantity or receiver problem
    await assertNoPendingTransfer(tx, line, '再次发起转移', ctx.now);
    const pending = pendingQuantityOf(line);
    if (input.quantity !== undefined && !new Decimal(input.quantity).equals(pending)) {
      const whole = toQuantityOrZero(pending.toString());
      throw new AppError(
        'SPLIT_REQUIRED',
        `转移只能针对整行：该借用记录未归还数量为 ${whole}。如只转移部分数量，请先将该行拆分为单独的一行，再转移拆出的行`,
        { pending_quantity: whole, quantity: input.quantity },
      );
    }
    if (input.to_user_id === ctx.actor.id) {
      throw new AppError('VALIDATION_FAILED', '接收人不能是当前持有人本人', { field: 'to_user_id' });
    }
    await activeUserOf(tx, line.companyName, input.to_user_id, 'to_user_id');

    const [transfer] = await tx
      .insert(transBorrowTransfer)
      .values({
        borrowId: line.id,
        fromUserId: ctx.actor.id,
        toUserId: input.to_user_id,
        quantity: pending.toString(),
        status: 'PENDING',
        companyName: line.companyName,
        createdAt: ctx.now,
      })
      .returning();
    return toTransferViewOf(tx, transfer!, line);
  });
}
