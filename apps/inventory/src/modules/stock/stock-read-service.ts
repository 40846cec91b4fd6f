import { and, count, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { companyCondition, likePattern, pageOf, pagingOf, type Page, type UseCaseContext } from '@wms/platform';
import { materials, stockRows, type StockKind } from '../../db/schema/index.js';
import { normalizeLocation } from './location.js';
import { priceVisibilityOf } from './price-visibility.js';
import type { StockListQuery, StockRowView } from './schemas.js';
import { toStockRowView } from './stock-mapper.js';
import { flattenJoined, readScopedStockRow, selectStockRows } from './stock-rows.js';

export async function getStockRow(ctx: UseCaseContext, id: number, sourceTable?: StockKind): Promise<StockRowView> {
  const row = await ctx.read((q) => readScopedStockRow(q, ctx.scope(), id, sourceTable));
  return toStockRowView(row, priceVisibilityOf(ctx.actor));
}

/** Newest first; one joined query for the page and one count, whatever the page size. */
export async function listStockRows(ctx: UseCaseContext, query: StockListQuery): Promise<Page<StockRowView>> {
  const paging = pagingOf(query);
  const where = listConditions(ctx, query);
  const prices = priceVisibilityOf(ctx.actor);
  return ctx.read(async (q) => {
    const rows = await selectStockRows(q).where(where).orderBy(desc(stockRows.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q
      .select({ n: count() })
      .from(stockRows)
      .innerJoin(materials, eq(materials.id, stockRows.baseId))
      .where(where);
    return pageOf(rows.map((row) => toStockRowView(flattenJoined(row), prices)), total?.n ?? 0, paging);
  });
}

function listConditions(ctx: UseCaseContext, query: StockListQuery): SQL | undefined {
  const conditions: (SQL | undefined)[] = [companyCondition(ctx.scope(query.company), materials.companyName)];
  const keyword = query.keyword?.trim();
  if (keyword) {
    const pattern = likePattern(keyword);
    conditions.push(
      or(
        ilike(stockRows.sku, pattern),
        ilike(stockRows.batchNumber, pattern),
        ilike(stockRows.serialNumber, pattern),
        ilike(materials.name, pattern),
        ilike(materials.specModel, pattern),
        ilike(stockRows.warehouseLocation, pattern),
      ),
    );
  }
  if (query.source_table) conditions.push(eq(stockRows.sourceTable, query.source_table));
  if (query.status) conditions.push(eq(stockRows.status, query.status));
  if (query.base_id) conditions.push(eq(stockRows.baseId, query.base_id));
  const location = normalizeLocation(query.warehouse_location);
  if (location) conditions.push(sql`${stockRows.warehouseLocation} LIKE ${`${escapeLike(location)}%`}`);
  return and(...conditions);
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);
