import { toDecimalString, type UseCaseContext } from '@wms/platform';
import { relaxLowStockLevels } from '../notifications/low-stock.js';
import { putBackOnOriginalRow } from '../returns/original-row.js';
import { lockLedgerEntry, takeFromLedger } from './ledger-lock.js';
import { toLedgerEntryView } from './ledger-mapper.js';
import type { LedgerEntryView, RestockBody } from './schemas.js';

/**
 * POST /inbound/stock/defective/:id/restock (spec 4.2, 3.8; contract §8): puts some or all of a held item
 * back on its original stock row (stock and available grow; the row must still exist and be 在库) and
 * lowers remaining_qty; at 0 the entry is 已退回库存. Locks the ledger entry, then the stock row.
 */
export async function restockDefective(ctx: UseCaseContext, id: number, input: RestockBody): Promise<LedgerEntryView> {
  const quantity = toDecimalString(input.quantity);
  return ctx.transaction(async (tx) => {
    const entry = await lockLedgerEntry(tx, ctx.scope(), id);
    const updated = await takeFromLedger(tx, entry, quantity, '已退回库存', ctx.now);
    await putBackOnOriginalRow(tx, entry.stockId, quantity, entry.sku, ctx.now);
    await relaxLowStockLevels(tx, [entry.baseId], ctx.now);
    return toLedgerEntryView(updated);
  });
}
