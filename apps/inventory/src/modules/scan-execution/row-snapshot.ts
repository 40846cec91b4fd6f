import type { StockKind } from '../../db/schema/index.js';
import type { StockRowWithMaterial } from '../stock/stock-rows.js';

/**
 * What an execution line keeps of its scanned row and material (spec 2.5, 2.6): snapshots taken at
 * execution, so the line never depends on a row that stock maintenance may later delete.
 */
export interface RowSnapshot {
  stockId: number;
  sourceTable: StockKind;
  baseId: number;
  sku: string;
  materialName: string;
  specModel: string;
  unit: string;
}

export function rowSnapshotOf(row: StockRowWithMaterial): RowSnapshot {
  return {
    stockId: row.id,
    sourceTable: row.sourceTable,
    baseId: row.baseId,
    sku: row.sku,
    materialName: row.materialName,
    specModel: row.specModel,
    unit: row.unit,
  };
}

/** The snapshot as a line view shows it (RowSnapshotFields). */
export function rowSnapshotView(line: RowSnapshot) {
  return {
    stock_id: line.stockId,
    source_table: line.sourceTable,
    base_id: line.baseId,
    sku: line.sku,
    material_name: line.materialName,
    spec_model: line.specModel,
    unit: line.unit,
  };
}
