import { and, eq, gte, sql } from 'drizzle-orm';
import { AppError, toQuantityOrZero, type Decimal, type Tx } from '@wms/platform';
import { stockRows } from '../../db/schema/index.js';
import { releaseReservation, reservedOnRow, type ReservationLine } from '../reservation/index.js';
import { lockScannedRows, type Pick, type ScannedRequest, type ScanWording } from './scanned-lines.js';

/**
 * How a scanned quantity leaves its row: `deduct` (outbound, scrap) takes it off stock and available;
 * `freeze` (borrow) takes it off available only, stock_quantity keeps it until it comes back.
 */
export type Taking = 'deduct' | 'freeze';

/** What tells one execution by scan from another. */
export interface ScanExecution extends ScanWording {
  taking: Taking;
}

/**
 * The common part of every execution by scan (contract §8): the scanned rows locked in id order and
 * checked, then the request's whole reservation released through the shared routine, then each pick
 * taken off its row. What was reserved and not scanned stays released. Answers the picks in id order
 * and the released lines for the caller to store with the request's move. The caller has locked the
 * request and checked that it may move.
 */
export async function takeScannedLines(
  tx: Tx,
  request: ScannedRequest,
  scans: Map<string, Decimal>,
  execution: ScanExecution,
): Promise<{ picks: Pick[]; released: ReservationLine[] }> {
  const picks = await lockScannedRows(tx, request, scans, execution);
  const released = await releaseReservation(tx, request.itemsJson);
  for (const pick of picks) await takeFromRow(tx, pick, request.itemsJson, execution.taking);
  return { picks, released };
}

/**
 * One pick off its row with a guarded update: a row's available quantity never goes negative. The
 * request's reserved lines (before the release) only explain the 400: what it could have used there.
 */
async function takeFromRow(tx: Tx, pick: Pick, reserved: readonly ReservationLine[], taking: Taking): Promise<void> {
  const quantity = pick.quantity.toString();
  const updated = await tx
    .update(stockRows)
    .set({
      ...(taking === 'deduct' ? { stockQuantity: sql`${stockRows.stockQuantity} - ${quantity}::numeric` } : {}),
      availableQuantity: sql`${stockRows.availableQuantity} - ${quantity}::numeric`,
      updatedAt: sql`now()`,
    })
    .where(and(eq(stockRows.id, pick.row.id), gte(stockRows.availableQuantity, quantity)))
    .returning({ id: stockRows.id });
  if (updated.length === 0) {
    const available = reservedOnRow(reserved, pick.row.id).plus(pick.row.availableQuantity);
    throw new AppError(
      'STOCK_SHORTAGE',
      `条码 ${pick.row.sku} 可用数量不足：需要 ${pick.quantity.toString()}，可用 ${available.toString()}`,
      { barcode: pick.row.sku, needed: toQuantityOrZero(quantity), remaining: toQuantityOrZero(available.toString()) },
    );
  }
}
