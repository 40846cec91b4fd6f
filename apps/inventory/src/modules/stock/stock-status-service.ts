import { and, eq } from 'drizzle-orm';
import { AppError, type UseCaseContext } from '@wms/platform';
import { stockRows, type StockStatus } from '../../db/schema/index.js';
import { scheduleLowStockCheck } from '../notifications/low-stock.js';
import { priceVisibilityOf } from './price-visibility.js';
import type { ChangeStatusBody, StockRowView } from './schemas.js';
import { toStockRowView } from './stock-mapper.js';
import { lockScopedStockRow, materialOf } from './stock-rows.js';

/**
 * Contract §8: any move among the three states is allowed; quantities and open reservations stay as they
 * are (executing a reservation on a row that is no longer 在库 fails later with NOT_IN_STOCK).
 */
const ALLOWED_MOVES: Record<StockStatus, readonly StockStatus[]> = {
  在库: ['冻结', '不良品'],
  冻结: ['在库', '不良品'],
  不良品: ['在库', '冻结'],
};

/** Asking for the status a row already has answers the row unchanged and writes nothing. */
export async function changeStockStatus(ctx: UseCaseContext, id: number, input: ChangeStatusBody): Promise<StockRowView> {
  const row = await ctx.transaction(async (tx) => {
    const current = await lockScopedStockRow(tx, ctx.scope(), id, input.source_table);
    const from = current.status;
    if (from === input.status) return current;
    if (!ALLOWED_MOVES[from].includes(input.status)) {
      throw new AppError('STATUS_NOT_ALLOWED', `库存状态不能从 ${from} 改为 ${input.status}`);
    }
    const [updated] = await tx
      .update(stockRows)
      .set({ status: input.status, updatedAt: ctx.now })
      .where(and(eq(stockRows.id, id), eq(stockRows.status, from)))
      .returning();
    if (!updated) throw new AppError('CONFLICT', '库存状态已被修改，请重试');
    // into or out of 不良品 changes the effective supply (either way: a recovery re-arms the alert)
    await scheduleLowStockCheck(ctx, tx, current.companyName, [current.baseId]);
    return { ...updated, ...materialOf(current) };
  });
  return toStockRowView(row, priceVisibilityOf(ctx.actor));
}
