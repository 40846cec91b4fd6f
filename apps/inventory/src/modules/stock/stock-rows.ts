import { and, eq } from 'drizzle-orm';
import { AppError, companyCondition, notFound, type CompanyScope, type Queryable, type Tx } from '@wms/platform';
import { materials, stockRows, type StockKind, type StockRow } from '../../db/schema/index.js';

/** The material columns every stock row answer carries; the company of a row is its material's (spec 2.2). */
const materialColumns = {
  materialName: materials.name,
  specModel: materials.specModel,
  category: materials.category,
  unit: materials.unit,
  companyName: materials.companyName,
  referencePrice: materials.referencePrice,
};

export interface MaterialOfRow {
  materialName: string;
  specModel: string;
  category: string;
  unit: string;
  companyName: string;
  referencePrice: string | null;
}

export type StockRowWithMaterial = StockRow & MaterialOfRow;

/** Stock rows joined with their material: the base of every read, one query per page, never one per row. */
export function selectStockRows(q: Queryable) {
  return q.select({ row: stockRows, material: materialColumns }).from(stockRows).innerJoin(materials, eq(materials.id, stockRows.baseId));
}

export const flattenJoined = (joined: { row: StockRow; material: MaterialOfRow }): StockRowWithMaterial => ({
  ...joined.row,
  ...joined.material,
});

export function materialOf(row: StockRowWithMaterial): MaterialOfRow {
  const { materialName, specModel, category, unit, companyName, referencePrice } = row;
  return { materialName, specModel, category, unit, companyName, referencePrice };
}

function assertFound(found: StockRowWithMaterial | undefined, sourceTable: StockKind | undefined): StockRowWithMaterial {
  // The three kinds share one id space; naming another kind than the row's means "no such row".
  if (!found || (sourceTable && found.sourceTable !== sourceTable)) throw notFound('库存记录');
  return found;
}

/**
 * Locks one stock row of the caller's scope. FOR UPDATE OF stock_rows: the material is read, not locked.
 * Another company's id, an unknown id and a source_table that does not match are all 404.
 */
export async function lockScopedStockRow(tx: Tx, scope: CompanyScope, id: number, sourceTable?: StockKind) {
  const [found] = await selectStockRows(tx)
    .where(and(eq(stockRows.id, id), companyCondition(scope, materials.companyName)))
    .for('update', { of: stockRows });
  return assertFound(found && flattenJoined(found), sourceTable);
}

export async function readScopedStockRow(q: Queryable, scope: CompanyScope, id: number, sourceTable?: StockKind) {
  const [found] = await selectStockRows(q).where(and(eq(stockRows.id, id), companyCondition(scope, materials.companyName)));
  return assertFound(found && flattenJoined(found), sourceTable);
}

/**
 * The scan rule (spec 2.2 and 7, contract §8): only a 在库 row is accepted by an outbound, dispatch or
 * scrap scan; any other status is 400 NOT_IN_STOCK. `verb` names what the scan was for.
 */
export function assertAcceptedByScan(barcode: string, status: string, verb: string): void {
  if (status !== '在库') throw new AppError('NOT_IN_STOCK', `条码 ${barcode} 的库存状态为「${status}」，不能${verb}`, { barcode, status });
}
