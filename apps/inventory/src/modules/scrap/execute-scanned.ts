import type { Decimal, Tx } from '@wms/platform';
import type { ScrapLine, ScrapRequestRow, StockKind } from '../../db/schema/index.js';
import type { ReservationLine } from '../reservation/index.js';
import { takeScannedLines, type ScanExecution } from '../scan-execution/take-scanned.js';
import type { ScrappedUnit } from './scrapped-units.js';

/**
 * A scrap by scan deducts what was scanned (stock and available fall), and only from the rows the
 * request names: the item itself is written off, no other row may stand in for it.
 */
const SCRAP_SCAN: ScanExecution = { verb: '报废', noun: '报废申请', field: 'scans.barcode', taking: 'deduct', match: 'row' };

/** A stock line of a scan-mode request, as the shared execution by scan reads request lines. */
const asReservationLine = (line: ScrapLine): ReservationLine => ({
  base_id: line.base_id,
  quantity: line.quantity,
  stock_id: line.stock_id,
  source_table: line.source_table as StockKind,
  reserved: line.reserved,
});

/**
 * Scan mode (stock rows): the shared execution by scan locks the scanned and reserved rows in id order,
 * checks them (another company's barcode 403, not 在库 400 NOT_IN_STOCK, not on the request 400, more
 * than requested per row 400 QUANTITY_EXCEEDS), releases the whole reservation and deducts each scan.
 * What was reserved and not scanned stays released.
 */
export async function scrapScanned(
  tx: Tx,
  request: ScrapRequestRow,
  scans: Map<string, Decimal>,
): Promise<{ units: ScrappedUnit[]; lines: ScrapLine[]; lowered: number[] }> {
  const scanned = { companyName: request.companyName, itemsJson: request.itemsJson.map(asReservationLine) };
  const { picks } = await takeScannedLines(tx, scanned, scans, SCRAP_SCAN);
  const locations = new Map(request.itemsJson.map((line) => [line.stock_id, line.location]));
  const units = picks.map(({ row, quantity }) => ({
    sourceTable: row.sourceTable,
    stockId: row.id,
    baseId: row.baseId,
    sku: row.sku,
    materialName: row.materialName,
    specModel: row.specModel,
    unit: row.unit,
    quantity: quantity.toString(),
    location: locations.get(row.id) || row.warehouseLocation,
    unitCost: row.unitCost,
    referencePrice: row.referencePrice,
  }));
  return {
    units,
    lines: request.itemsJson.map((line) => ({ ...line, reserved: false })),
    lowered: picks.map((pick) => pick.row.baseId),
  };
}
