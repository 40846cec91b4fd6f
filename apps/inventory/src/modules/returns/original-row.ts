import { eq, sql } from 'drizzle-orm';
import { AppError, type Tx } from '@wms/platform';
import { stockRows } from '../../db/schema/index.js';

/**
 * Puts returned goods back on the stock row they left from (spec 4.1 rule 1; contract §8 restock):
 * stock_quantity and available_quantity both grow by the quantity. The row is locked first; a row that
 * no longer exists, or is not 在库, refuses the goods (400 NOT_IN_STOCK) and nothing is written.
 */
export async function putBackOnOriginalRow(tx: Tx, stockId: number, quantity: string, sku: string, now: Date): Promise<void> {
  const [row] = await tx
    .select({ id: stockRows.id, status: stockRows.status })
    .from(stockRows)
    .where(eq(stockRows.id, stockId))
    .for('update');
  if (!row) {
    throw new AppError('NOT_IN_STOCK', `原库存行（条码 ${sku}）已不存在，不能加回库存`, { stock_id: stockId, status: null });
  }
  if (row.status !== '在库') {
    throw new AppError('NOT_IN_STOCK', `原库存行（条码 ${sku}）状态为「${row.status}」，只有在库状态可以加回库存`, {
      stock_id: stockId,
      status: row.status,
    });
  }
  await tx
    .update(stockRows)
    .set({
      stockQuantity: sql`${stockRows.stockQuantity} + ${quantity}::numeric`,
      availableQuantity: sql`${stockRows.availableQuantity} + ${quantity}::numeric`,
      updatedAt: now,
    })
    .where(eq(stockRows.id, stockId));
}
