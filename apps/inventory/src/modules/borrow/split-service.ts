import { eq, sql } from 'drizzle-orm';
import { AppError, Decimal, toQuantityOrZero, type UseCaseContext } from '@wms/platform';
import { transBorrow } from '../../db/schema/index.js';
import { assertBorrowed, assertHolder, assertNoPendingTransfer, lockLine, pendingQuantityOf } from './line-access.js';
import { toLineViews } from './line-views.js';
import type { SplitBody, SplitResult } from './schemas.js';

/**
 * POST /borrow/:id/split (contract §4): the holder cuts part of what is still out into a new line of the
 * same row, slip and holder, so that part can be transferred alone. The old line keeps its returned
 * quantity and the rest; the new line starts with nothing returned and continues the old line's history.
 * Only the unreturned part can be split, and never all of it; refused while a transfer is PENDING.
 * No stock change: the frozen quantity is the same, on two lines.
 */
export function splitBorrowLine(ctx: UseCaseContext, id: number, input: SplitBody): Promise<SplitResult> {
  const quantity = new Decimal(input.quantity);
  return ctx.transaction(async (tx) => {
    const line = await lockLine(tx, ctx.scope(), id);
    assertBorrowed(line, '拆分');
    assertHolder(line, ctx.actor, '拆分');
    await assertNoPendingTransfer(tx, line, '拆分', ctx.now);
    const pending = pendingQuantityOf(line);
    if (!quantity.lessThan(pending)) {
      const whole = toQuantityOrZero(pending.toString());
      throw new AppError('QUANTITY_EXCEEDS', `拆分数量 ${quantity.toString()} 必须小于该行未归还数量 ${whole}（整行可直接转移）`, {
        pending_quantity: whole,
        quantity: input.quantity,
      });
    }
    const [original] = await tx
      .update(transBorrow)
      .set({ quantity: sql`${transBorrow.quantity} - ${quantity.toString()}::numeric`, updatedAt: ctx.now })
      .where(eq(transBorrow.id, line.id))
      .returning();
    const { id: _parentId, createdAt: _createdAt, ...copied } = line;
    const [created] = await tx
      .insert(transBorrow)
      .values({
        ...copied,
        quantity: quantity.toString(),
        initialQuantity: quantity.toString(),
        returnedQuantity: '0',
        returnedAt: null,
        splitFromId: line.id,
        splitAt: ctx.now,
        splitOperator: ctx.actor.username,
        splitOperatorId: ctx.actor.id,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    return toLineViews(tx, [original!, created!], ctx.actor);
  });
}
