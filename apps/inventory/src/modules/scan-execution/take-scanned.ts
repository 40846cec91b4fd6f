import { sql } from 'drizzle-orm';
import { AppError, queryRows, toQuantityOrZero, type Decimal, type Tx } from '@wms/platform';
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
 * checked, then the request's whole reservation released through the shared routine, then every pick
 * taken off its row. What was reserved and not scanned stays released. One statement per kind of
 * change, whatever the number of lines. Answers the picks in id order and the released lines for the
 * caller to store with the request's move. The caller has locked the request and checked that it may move.
 */
export async function takeScannedLines(
  tx: Tx,
  request: ScannedRequest,
  scans: Map<string, Decimal>,
  execution: ScanExecution,
): Promise<{ picks: Pick[]; released: ReservationLine[] }> {
  const picks = await lockScannedRows(tx, request, scans, execution);
  const released = await releaseReservation(tx, request.itemsJson);
  await takeFromRows(tx, picks, request.itemsJson, execution.taking);
  return { picks, released };
}

/** What a taking subtracts besides available_quantity. */
const stockChange = (taking: Taking) => (taking === 'deduct' ? sql`stock_quantity = s.stock_quantity - taken.quantity,` : sql``);

/**
 * Every pick off its row in one guarded update: a row's available quantity never goes negative and
 * only a 在库 row gives. The picks' rows are locked already (lockScannedRows), one pick per row. When a
 * row cannot give, nothing is kept (the caller's transaction rolls back) and the refusal names the
 * first such pick in id order, as taking them one by one did. The request's reserved lines (before the
 * release) only explain the 400: what it could have used there.
 */
async function takeFromRows(tx: Tx, picks: readonly Pick[], reserved: readonly ReservationLine[], taking: Taking): Promise<void> {
  if (picks.length === 0) return;
  const ids = picks.map((pick) => pick.row.id);
  const quantities = picks.map((pick) => pick.quantity.toString());
  const taken = await queryRows<{ id: number }>(
    tx,
    sql`update stock_rows as s
           set ${stockChange(taking)} available_quantity = s.available_quantity - taken.quantity, updated_at = now()
          from unnest(${sql.param(ids)}::int[], ${sql.param(quantities)}::numeric[]) as taken(id, quantity)
         where s.id = taken.id and s.status = '在库' and s.available_quantity >= taken.quantity
        returning s.id`,
  );
  if (taken.length === picks.length) return;
  const given = new Set(taken.map((row) => row.id));
  throw shortageOf(picks.find((pick) => !given.has(pick.row.id))!, reserved);
}

function shortageOf(pick: Pick, reserved: readonly ReservationLine[]): AppError {
  const available = reservedOnRow(reserved, pick.row.id).plus(pick.row.availableQuantity);
  return new AppError(
    'STOCK_SHORTAGE',
    `条码 ${pick.row.sku} 可用数量不足：需要 ${pick.quantity.toString()}，可用 ${available.toString()}`,
    { barcode: pick.row.sku, needed: toQuantityOrZero(pick.quantity.toString()), remaining: toQuantityOrZero(available.toString()) },
  );
}
