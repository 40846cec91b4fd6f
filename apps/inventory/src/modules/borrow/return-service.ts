import { and, eq, sql } from 'drizzle-orm';
import { AppError, Decimal, type UseCaseContext } from '@wms/platform';
import { stockRows, transBorrow, transBorrowReturn } from '../../db/schema/index.js';
import { assertBorrowed, assertHolder, assertNoPendingTransfer, lockLine, pendingQuantityOf, quantityExceeds } from './line-access.js';
import { toLineViewOf } from './line-views.js';
import type { BorrowLineView, ReturnBody } from './schemas.js';

/**
 * POST /borrow/:id/return (spec 3.4): the current holder brings back part or all of what is out. The
 * quantity goes back to the row's available_quantity only (stock_quantity always contained it); one
 * trans_borrow_return row per action; when everything is back the line is returned and has no holder.
 * Anybody but the holder is 403 NOT_HOLDER with nothing written. Lock order: the line, then its row.
 */
export function returnBorrowLine(ctx: UseCaseContext, id: number, input: ReturnBody): Promise<BorrowLineView> {
  const quantity = new Decimal(input.quantity);
  return ctx.transaction(async (tx) => {
    const line = await lockLine(tx, ctx.scope(), id);
    assertBorrowed(line, '归还');
    assertHolder(line, ctx.actor, '归还');
    await assertNoPendingTransfer(tx, line, '归还', ctx.now);
    const pending = pendingQuantityOf(line);
    if (quantity.greaterThan(pending)) throw quantityExceeds(line, quantity, '归还');
    const complete = quantity.equals(pending);

    const [row] = await tx.select({ id: stockRows.id }).from(stockRows).where(eq(stockRows.id, line.stockId)).for('update');
    const given = row
      ? await tx
          .update(stockRows)
          .set({ availableQuantity: sql`${stockRows.availableQuantity} + ${quantity.toString()}::numeric`, updatedAt: sql`now()` })
          .where(and(eq(stockRows.id, line.stockId), sql`${stockRows.availableQuantity} + ${quantity.toString()}::numeric <= ${stockRows.stockQuantity}`))
          .returning({ id: stockRows.id })
      : [];
    if (given.length === 0) {
      throw new AppError('STATUS_NOT_ALLOWED', `借用物品对应的库存行（${line.sku}）已不存在或数量已被修改，无法归还`, { stock_id: line.stockId });
    }

    await tx.insert(transBorrowReturn).values({
      borrowId: line.id,
      quantity: quantity.toString(),
      location: input.location?.trim() ?? '',
      remark: input.remark?.trim() || null,
      operator: ctx.actor.username,
      operatorId: ctx.actor.id,
      companyName: line.companyName,
      createdAt: ctx.now,
    });
    const [updated] = await tx
      .update(transBorrow)
      .set({
        returnedQuantity: sql`${transBorrow.returnedQuantity} + ${quantity.toString()}::numeric`,
        ...(complete ? { status: 'returned' as const, currentHolderId: null, returnedAt: ctx.now } : {}),
        updatedAt: ctx.now,
      })
      .where(and(eq(transBorrow.id, line.id), eq(transBorrow.status, 'borrowed'), eq(transBorrow.currentHolderId, ctx.actor.id)))
      .returning();
    return toLineViewOf(tx, updated!, ctx.actor);
  });
}
