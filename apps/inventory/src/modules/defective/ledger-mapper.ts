import { toQuantityOrZero } from '@wms/platform';
import type { DefectiveGoodsRow } from '../../db/schema/index.js';
import type { LedgerEntryView } from './schemas.js';

/** The only way a ledger entry leaves the service. */
export function toLedgerEntryView(row: DefectiveGoodsRow): LedgerEntryView {
  return {
    id: row.id,
    return_id: row.returnId,
    sku: row.sku,
    stock_id: row.stockId,
    source_table: row.sourceTable,
    base_id: row.baseId,
    material_name: row.materialName,
    spec_model: row.specModel,
    quantity: toQuantityOrZero(row.quantity),
    remaining_qty: toQuantityOrZero(row.remainingQty),
    status: row.status,
    company_name: row.companyName,
    company: row.companyName,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
}
