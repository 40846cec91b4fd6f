import { and, asc, eq, ilike } from 'drizzle-orm';
import {
  AppError,
  companyCondition,
  likePattern,
  scopeAllows,
  validationFailed,
  type CompanyScope,
  type Queryable,
  type UseCaseContext,
} from '@wms/platform';
import { materials, stockRows } from '../../db/schema/index.js';
import { priceVisibilityOf } from './price-visibility.js';
import type { StockRowView } from './schemas.js';
import { toStockRowView } from './stock-mapper.js';
import { flattenJoined, selectStockRows, type StockRowWithMaterial } from './stock-rows.js';

/** How many partial matches an ambiguous answer names. */
const CANDIDATES_SHOWN = 10;

/**
 * Barcode lookup (spec 4.2, contract §3/§8): an exact sku match is searched across ALL companies, so a
 * barcode of another company is 403 OTHER_COMPANY naming it; otherwise a partial sku match (ILIKE) within
 * the caller's scope must be exactly one row (several: 400 AMBIGUOUS_BARCODE; none: 404).
 * Any status is answered here: this is a lookup; the 在库-only rule belongs to the executing scans.
 */
export async function scanStockRow(ctx: UseCaseContext, rawBarcode: string): Promise<StockRowView> {
  const row = await ctx.read((q) => findRowByBarcode(q, ctx.scope(), rawBarcode));
  return toStockRowView(row, priceVisibilityOf(ctx.actor));
}

/**
 * The barcode rule every scan shares (stock scan, stocktake add and scan): exact sku across all companies
 * (another company's: 403 OTHER_COMPANY with `company`), else one partial match inside `scope`
 * (several: 400 AMBIGUOUS_BARCODE with `candidates`; none: 404). Any status.
 */
export async function findRowByBarcode(q: Queryable, scope: CompanyScope, rawBarcode: string): Promise<StockRowWithMaterial> {
  const barcode = rawBarcode.trim();
  if (!barcode) throw validationFailed('条码不能为空', { field: 'barcode' });
  const [exact] = await selectStockRows(q).where(eq(stockRows.sku, barcode));
  if (exact) {
    const company = exact.material.companyName;
    if (!scopeAllows(scope, company)) {
      throw new AppError('OTHER_COMPANY', `条码 ${barcode} 属于其他公司（${company}）`, { company });
    }
    return flattenJoined(exact);
  }
  const partial = await selectStockRows(q)
    .where(and(ilike(stockRows.sku, likePattern(barcode)), companyCondition(scope, materials.companyName)))
    .orderBy(asc(stockRows.id))
    .limit(CANDIDATES_SHOWN + 1);
  const [only, ...others] = partial.map(flattenJoined);
  if (!only) throw new AppError('NOT_FOUND', `条码 ${barcode} 不存在`);
  if (others.length > 0) {
    const candidates = [only, ...others].slice(0, CANDIDATES_SHOWN).map((row) => row.sku);
    throw new AppError('AMBIGUOUS_BARCODE', `条码 ${barcode} 匹配到多条库存，请扫描完整条码`, { candidates });
  }
  return only;
}
