import { toQuantityOrZero } from '@wms/platform';
import type { StockMoveRow } from '../../db/schema/index.js';
import type { StockMoveView } from './move-schemas.js';

export function toStockMoveView(move: StockMoveRow): StockMoveView {
  return {
    id: move.id,
    stock_id: move.stockId,
    to_stock_id: move.toStockId,
    source_table: move.sourceTable,
    sku: move.sku,
    to_sku: move.toSku,
    base_id: move.baseId,
    company_name: move.companyName,
    from_location: move.fromLocation,
    to_location: move.toLocation,
    quantity: toQuantityOrZero(move.quantity),
    whole: move.whole,
    operator: move.operator,
    operator_name: move.operatorName,
    moved_at: move.movedAt.toISOString(),
  };
}
