import { toQuantity, toQuantityOrZero } from '@wms/platform';
import type { StockRowView } from './schemas.js';
import type { PriceVisibility } from './price-visibility.js';
import type { StockRowWithMaterial } from './stock-rows.js';

/** The only way a stock row leaves the service; price fields only when the caller may read them. */
export function toStockRowView(row: StockRowWithMaterial, prices: PriceVisibility): StockRowView {
  const view: StockRowView = {
    id: row.id,
    source_table: row.sourceTable,
    sku: row.sku,
    base_id: row.baseId,
    material_name: row.materialName,
    spec_model: row.specModel,
    category: row.category,
    unit: row.unit,
    company_name: row.companyName,
    stock_quantity: toQuantityOrZero(row.stockQuantity),
    available_quantity: toQuantityOrZero(row.availableQuantity),
    in_quantity: toQuantityOrZero(row.inQuantity),
    status: row.status,
    warehouse_location: row.warehouseLocation,
    // Spec 2.2: a finished product has no batch; its batch number reads as an empty string.
    batch_number: row.sourceTable === 'stock_product' ? '' : row.batchNumber,
    serial_number: row.serialNumber,
    in_date: row.inDate,
    production_date: row.productionDate,
    request_id: row.requestId,
    bom_version_id: row.bomVersionId,
    remark: row.remark,
    created_at: row.createdAt.toISOString(),
    updated_at: row.updatedAt.toISOString(),
  };
  if (prices.unitCost) view.unit_cost = toQuantity(row.unitCost);
  if (prices.referencePrice) view.referencePrice = toQuantity(row.referencePrice);
  return view;
}
