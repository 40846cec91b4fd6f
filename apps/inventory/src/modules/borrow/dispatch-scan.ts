import { asc, inArray } from 'drizzle-orm';
import { AppError, Decimal, toQuantityOrZero, type Tx } from '@wms/platform';
import { stockRows, type BorrowRequestRow } from '../../db/schema/index.js';
import { quantityPerMaterial } from '../reservation/index.js';
import { flattenJoined, selectStockRows, type StockRowWithMaterial } from '../stock/stock-rows.js';
import type { DispatchBody } from './schemas.js';

/** One scanned row and the quantity taken from it (several scans of one barcode are summed). */
export interface Pick {
  row: StockRowWithMaterial;
  quantity: Decimal;
}

export function sumPerBarcode(lines: DispatchBody['lines']): Map<string, Decimal> {
  const perBarcode = new Map<string, Decimal>();
  for (const line of lines) {
    const barcode = line.barcode.trim();
    if (!barcode) throw new AppError('VALIDATION_FAILED', '条码不能为空', { field: 'lines.barcode' });
    perBarcode.set(barcode, (perBarcode.get(barcode) ?? new Decimal(0)).plus(line.quantity));
  }
  return perBarcode;
}

/** Barcode → stock row id. Unknown barcode 404; a row of another company than the request's 403. */
export async function resolveBarcodes(tx: Tx, request: BorrowRequestRow, barcodes: string[]): Promise<Map<string, number>> {
  const rows = (await selectStockRows(tx).where(inArray(stockRows.sku, barcodes))).map(flattenJoined);
  const bySku = new Map(rows.map((row) => [row.sku, row]));
  const ids = new Map<string, number>();
  for (const barcode of barcodes) {
    const row = bySku.get(barcode);
    if (!row) throw new AppError('NOT_FOUND', `条码 ${barcode} 不存在`, { barcode });
    if (row.companyName !== request.companyName) {
      throw new AppError('OTHER_COMPANY', `条码 ${barcode} 属于其他公司（${row.companyName}）`, { company: row.companyName, barcode });
    }
    ids.set(barcode, row.id);
  }
  return ids;
}

/** Locks every involved stock row FOR UPDATE in ascending id order (no two dispatches deadlock). */
export async function lockRowsInIdOrder(tx: Tx, ids: number[]): Promise<Map<number, StockRowWithMaterial>> {
  const unique = [...new Set(ids)];
  if (unique.length === 0) return new Map();
  const rows = await selectStockRows(tx).where(inArray(stockRows.id, unique)).orderBy(asc(stockRows.id)).for('update', { of: stockRows });
  return new Map(rows.map((joined) => [joined.row.id, flattenJoined(joined)]));
}

/**
 * Contract §8: every scanned row 在库 and of a material the request names (another 在库 row of it may
 * stand in for the allocated one); per material no more than requested. Answers the picks in id order.
 */
export function checkPicks(
  request: BorrowRequestRow,
  scans: Map<string, Decimal>,
  scannedIds: Map<string, number>,
  locked: Map<number, StockRowWithMaterial>,
): Pick[] {
  const requested = quantityPerMaterial(request.itemsJson);
  const scannedPerMaterial = new Map<number, Decimal>();
  const picks: Pick[] = [];
  for (const [barcode, quantity] of scans) {
    const row = locked.get(scannedIds.get(barcode)!);
    if (!row) throw new AppError('NOT_FOUND', `条码 ${barcode} 不存在`, { barcode });
    if (row.status !== '在库') {
      throw new AppError('NOT_IN_STOCK', `条码 ${barcode} 的库存状态为「${row.status}」，不能借出`, { barcode, status: row.status });
    }
    if (!requested.has(row.baseId)) {
      throw new AppError('VALIDATION_FAILED', `条码 ${barcode} 的物料「${row.materialName}」不在该借用申请中`, {
        field: 'lines.barcode',
        barcode,
        base_id: row.baseId,
      });
    }
    scannedPerMaterial.set(row.baseId, (scannedPerMaterial.get(row.baseId) ?? new Decimal(0)).plus(quantity));
    picks.push({ row, quantity });
  }
  for (const [baseId, scanned] of scannedPerMaterial) {
    const wanted = requested.get(baseId)!;
    if (scanned.greaterThan(wanted)) {
      const name = picks.find((pick) => pick.row.baseId === baseId)!.row.materialName;
      throw new AppError('QUANTITY_EXCEEDS', `物料「${name}」扫描数量 ${scanned.toString()} 超过申请数量 ${wanted.toString()}`, {
        base_id: baseId,
        requested: toQuantityOrZero(wanted.toString()),
        scanned: toQuantityOrZero(scanned.toString()),
      });
    }
  }
  return picks.sort((a, b) => a.row.id - b.row.id);
}
