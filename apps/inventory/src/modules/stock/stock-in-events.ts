import type { Tx, UseCaseContext } from '@wms/platform';
import { relaxLowStockLevels } from '../notifications/low-stock.js';
import { enqueueStockInNotice } from '../notifications/stock-in-notice.js';
import { announceOutboxMessages } from '../notifications/outbox-signal.js';
import { completePurchaseByStockIn } from '../purchase/stock-in-completion.js';
import type { StockRowWithMaterial } from './stock-rows.js';

/**
 * Called inside the stock-in transaction right after the row is inserted:
 *  - the stock-in message for the tracking service goes into the outbox in this same transaction
 *    (contract §5; operator = the caller's username), delivered after commit by the dispatcher
 *    (woken by the after-commit announcement);
 *  - a stock_buy row naming request_id completes that purchase request (spec 4.2; refused with 400 when
 *    the request is not approved or not of the row's company and material, rolling the stock-in back);
 *  - the material's low-stock alert level comes down if the new stock lifted it above a threshold,
 *    so the next fall is a new crossing (contract §8); a completed purchase's low-stock check does that
 *    itself (its in-transit quantity became stock, so the supply may have moved either way).
 */
export async function onStockedIn(ctx: UseCaseContext, tx: Tx, row: StockRowWithMaterial): Promise<void> {
  if (row.requestId !== null) {
    await completePurchaseByStockIn(ctx, tx, { requestId: row.requestId, baseId: row.baseId, companyName: row.companyName });
  }
  await enqueueStockInNotice(tx, ctx.actor.username, row);
  ctx.afterCommit(announceOutboxMessages);
  if (row.requestId === null) await relaxLowStockLevels(tx, [row.baseId], ctx.now);
}
