import { and, eq, sql } from 'drizzle-orm';
import { AppError, Decimal, type UseCaseContext } from '@wms/platform';
import { stockRows, type StockKind } from '../../db/schema/index.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { priceVisibilityOf } from './price-visibility.js';
import { heldQuantityOf, quantityText } from './quantities.js';
import type { StockRowView } from './schemas.js';
import { toStockRowView } from './stock-mapper.js';
import { lockScopedStockRow } from './stock-rows.js';

/**
 * Deletes a stock row of any status, unless part of it is reserved or borrowed (available < stock):
 * that is 400 IN_USE naming the held quantity. History (outbound lines, returns, ledger entries) keeps
 * snapshots without a foreign key to the row, since stock maintenance may delete it (spec 2.7).
 * Answers the row as it was when deleted (contract §4: "row").
 */
export async function deleteStockRow(ctx: UseCaseContext, id: number, sourceTable?: StockKind): Promise<StockRowView> {
  const row = await ctx.transaction(async (tx) => {
    const current = await lockScopedStockRow(tx, ctx.scope(), id, sourceTable);
    const held = heldQuantityOf(current);
    if (held.gt(0)) {
      throw new AppError('IN_USE', `该库存有 ${quantityText(held)} 已被预留或借出，不能删除`, { reserved: held.toNumber() });
    }
    const deleted = await tx
      .delete(stockRows)
      .where(and(eq(stockRows.id, id), sql`${stockRows.availableQuantity} = ${stockRows.stockQuantity}`))
      .returning({ id: stockRows.id });
    if (deleted.length === 0) throw new AppError('CONFLICT', '库存记录已被修改，请重试');
    if (new Decimal(current.stockQuantity).gt(0)) await scheduleLowStockCheck(ctx, tx, current.companyName, [current.baseId]);
    return current;
  });
  return toStockRowView(row, priceVisibilityOf(ctx.actor));
}
