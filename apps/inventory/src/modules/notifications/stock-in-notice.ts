import { toQuantityOrZero, type Tx } from '@wms/platform';
import type { StockRowWithMaterial } from '../stock/stock-rows.js';
import { enqueueNotification } from './outbox.js';

/** The stock-in message (contract §5, and §8: it also carries the material's category). */
export function stockInPayload(operator: string, row: StockRowWithMaterial): Record<string, unknown> {
  return {
    company_name: row.companyName,
    operator,
    source_table: row.sourceTable,
    stock_id: row.id,
    sku: row.sku,
    serial_number: row.serialNumber,
    base_id: row.baseId,
    material_name: row.materialName,
    category: row.category,
    quantity: toQuantityOrZero(row.inQuantity),
    in_date: row.inDate,
  };
}

export function enqueueStockInNotice(tx: Tx, operator: string, row: StockRowWithMaterial): Promise<string> {
  return enqueueNotification(tx, 'stock-in', stockInPayload(operator, row));
}
