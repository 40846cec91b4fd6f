import type { Tx, UseCaseContext } from '@wms/platform';
import type { StockRowWithMaterial } from './stock-rows.js';

/**
 * Called inside the stock-in transaction right after the row is inserted: the place where the
 * stock-in message for the tracking service goes into the outbox (contract §5).
 */
export async function onStockedIn(_ctx: UseCaseContext, _tx: Tx, _row: StockRowWithMaterial): Promise<void> {}
