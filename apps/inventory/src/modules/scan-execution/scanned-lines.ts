import { asc, inArray, or } from 'drizzle-orm';
import { AppError, Decimal, toQuantityOrZero, type Tx } from '@wms/platform';
import { stockRows } from '../../db/schema/index.js';
import { quantityPerMaterial, quantityPerRow, type ReservationLine } from '../reservation/index.js';
import { assertAcceptedByScan, flattenJoined, selectStockRows, type StockRowWithMaterial } from '../stock/stock-rows.js';

/**
 * The scanned lines of an execution (contract §8 "Outbound and borrow execution"; also the scrap
 * execution): summed per barcode, resolved, locked and checked against the request.
 */

/** One scanned row and the quantity taken from it (several scans of one barcode are summed). */
export interface Pick {
  row: StockRowWithMaterial;
  quantity: Decimal;
}

/** The request being executed, as far as its scanned lines are concerned. */
export interface ScannedRequest {
  companyName: string;
  itemsJson: readonly ReservationLine[];
}

/** How a flow words its refusals. */
export interface ScanWording {
  /** The execution in 「不能出库」: 出库, 借出. */
  verb: string;
  /** The request in 「不在该出库申请中」: 出库申请, 借用申请. */
  noun: string;
  /** Named as `field` when a scanned material is not part of the request (absent when not given). */
  field?: string;
  /**
   * What a scan must match: `material` (default; outbound, dispatch) — any 在库 row of a requested material
   * may stand in for the allocated one, no more than requested per material; `row` (scrap) — only the
   * rows the request names, no more than requested per row (the item itself is being written off).
   */
  match?: 'material' | 'row';
}

/** Barcode → total scanned quantity; a blank barcode is 400. Runs before any lock is taken. */
export function sumPerBarcode(lines: readonly { barcode: string; quantity: number }[]): Map<string, Decimal> {
  const perBarcode = new Map<string, Decimal>();
  for (const line of lines) {
    const barcode = line.barcode.trim();
    if (!barcode) throw new AppError('VALIDATION_FAILED', '条码不能为空', { field: 'lines.barcode' });
    perBarcode.set(barcode, (perBarcode.get(barcode) ?? new Decimal(0)).plus(line.quantity));
  }
  return perBarcode;
}

/**
 * The scanned rows, locked and checked. The caller has locked the request already; then every scanned
 * row and every row the request still reserves is locked FOR UPDATE in ascending id order (no two
 * executions deadlock), in one statement that also resolves the barcodes. Unknown barcode 404; a row
 * of another company than the request's 403 OTHER_COMPANY (all barcodes are checked for these two
 * first, in scan order); then checkPicks. Answers the picks in id order.
 */
export async function lockScannedRows(tx: Tx, request: ScannedRequest, scans: Map<string, Decimal>, wording: ScanWording): Promise<Pick[]> {
  const reservedIds = request.itemsJson.filter((line) => line.reserved).map((line) => line.stock_id);
  const locked = await lockInIdOrder(tx, [...scans.keys()], reservedIds);
  const scanned = scannedRowsOf(request.companyName, [...scans.keys()], locked);
  return checkPicks(request, scans, scanned, wording);
}

/**
 * The rows with one of the barcodes and the rows of the ids, locked in ascending id order (FOR UPDATE
 * above the sort). A barcode of another company is locked too until the refusal rolls back: the lock
 * is taken before the company can be told.
 */
async function lockInIdOrder(tx: Tx, barcodes: string[], ids: number[]): Promise<StockRowWithMaterial[]> {
  const wanted = ids.length > 0 ? or(inArray(stockRows.sku, barcodes), inArray(stockRows.id, ids)) : inArray(stockRows.sku, barcodes);
  const rows = await selectStockRows(tx).where(wanted).orderBy(asc(stockRows.id)).for('update', { of: stockRows });
  return rows.map(flattenJoined);
}

/** Barcode → its locked row. Unknown barcode 404; a row of another company than the request's 403. */
function scannedRowsOf(company: string, barcodes: string[], locked: StockRowWithMaterial[]): Map<string, StockRowWithMaterial> {
  const bySku = new Map(locked.map((row) => [row.sku, row]));
  const scanned = new Map<string, StockRowWithMaterial>();
  for (const barcode of barcodes) {
    const row = bySku.get(barcode);
    if (!row) throw new AppError('NOT_FOUND', `条码 ${barcode} 不存在`, { barcode });
    if (row.companyName !== company) {
      throw new AppError('OTHER_COMPANY', `条码 ${barcode} 属于其他公司（${row.companyName}）`, { company: row.companyName, barcode });
    }
    scanned.set(barcode, row);
  }
  return scanned;
}

/** How the requested quantities are keyed and which key a scanned row has (ScanWording.match). */
function requestedBy(request: ScannedRequest, match: 'material' | 'row') {
  if (match === 'row') {
    return { requested: quantityPerRow(request.itemsJson), keyOf: (row: StockRowWithMaterial) => row.id };
  }
  return { requested: quantityPerMaterial(request.itemsJson), keyOf: (row: StockRowWithMaterial) => row.baseId };
}

/**
 * Every scanned row 在库 and of a material the request names (another 在库 row of it may stand in for
 * the allocated one); per material no more than requested. With match `row`: every scanned row one the
 * request names, per row no more than requested.
 */
function checkPicks(
  request: ScannedRequest,
  scans: Map<string, Decimal>,
  rowOfBarcode: Map<string, StockRowWithMaterial>,
  wording: ScanWording,
): Pick[] {
  const match = wording.match ?? 'material';
  const { requested, keyOf } = requestedBy(request, match);
  const scannedPerKey = new Map<number, Decimal>();
  const picks: Pick[] = [];
  for (const [barcode, quantity] of scans) {
    const row = rowOfBarcode.get(barcode)!;
    assertAcceptedByScan(barcode, row.status, wording.verb);
    if (!requested.has(keyOf(row))) {
      const what = match === 'row' ? `条码 ${barcode}` : `条码 ${barcode} 的物料「${row.materialName}」`;
      throw new AppError('VALIDATION_FAILED', `${what}不在该${wording.noun}中`, {
        ...(wording.field ? { field: wording.field } : {}),
        barcode,
        base_id: row.baseId,
        ...(match === 'row' ? { stock_id: row.id } : {}),
      });
    }
    scannedPerKey.set(keyOf(row), (scannedPerKey.get(keyOf(row)) ?? new Decimal(0)).plus(quantity));
    picks.push({ row, quantity });
  }
  for (const [key, scanned] of scannedPerKey) {
    const wanted = requested.get(key)!;
    if (scanned.greaterThan(wanted)) {
      const pick = picks.find((candidate) => keyOf(candidate.row) === key)!;
      const what = match === 'row' ? `条码 ${pick.row.sku}` : `物料「${pick.row.materialName}」`;
      throw new AppError('QUANTITY_EXCEEDS', `${what}扫描数量 ${scanned.toString()} 超过申请数量 ${wanted.toString()}`, {
        base_id: pick.row.baseId,
        ...(match === 'row' ? { stock_id: pick.row.id } : {}),
        requested: toQuantityOrZero(wanted.toString()),
        scanned: toQuantityOrZero(scanned.toString()),
      });
    }
  }
  return picks.sort((a, b) => a.row.id - b.row.id);
}
