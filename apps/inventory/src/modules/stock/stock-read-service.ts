import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { companyCondition, containsIgnoringCase, pageOf, pagingOf, type CompanyScope, type Page, type UseCaseContext } from '@wms/platform';
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

/**
 * Newest first. Every condition is on stock_rows (material ones as subqueries), so the count needs no
 * join and the page is found on stock_rows alone; only its rows are then joined with their materials.
 * The count comes first so a page in the older half is read from the oldest end (ascending, then
 * reversed): OFFSET walks at most half of the matching rows, and the last page costs what the first does.
 */
export async function listStockRows(ctx: UseCaseContext, query: StockListQuery): Promise<Page<StockRowView>> {
  const paging = pagingOf(query);
  const where = listConditions(ctx, query);
  const prices = priceVisibilityOf(ctx.actor);
  return ctx.read(async (q) => {
    const [counted] = await q.select({ n: count() }).from(stockRows).where(where);
    const total = counted?.n ?? 0;
    const window = pageWindow(total, paging.offset, paging.limit);
    if (!window) return pageOf([], total, paging);
    const order = window.newestFirst ? desc(stockRows.id) : asc(stockRows.id);
    const pageIds = q.select({ id: stockRows.id }).from(stockRows).where(where).orderBy(order).limit(window.limit).offset(window.offset);
    const rows = await selectStockRows(q).where(inArray(stockRows.id, pageIds)).orderBy(order);
    if (!window.newestFirst) rows.reverse();
    return pageOf(rows.map((row) => toStockRowView(flattenJoined(row), prices)), total, paging);
  });
}

/**
 * Rows [offset, offset + limit) of `total` in newest-first order, read from whichever end is nearer:
 * from the oldest end they are rows [total - end, total - offset) in ascending order. Undefined when
 * the page lies past the end.
 */
function pageWindow(total: number, offset: number, limit: number): { newestFirst: boolean; offset: number; limit: number } | undefined {
  const end = Math.min(offset + limit, total);
  if (offset >= end) return undefined;
  if (offset <= total - end) return { newestFirst: true, offset, limit: end - offset };
  return { newestFirst: false, offset: total - end, limit: end - offset };
}

function listConditions(ctx: UseCaseContext, query: StockListQuery): SQL | undefined {
  const keyword = query.keyword?.trim();
  const conditions: (SQL | undefined)[] = [companyOfRowCondition(ctx.scope(query.company), Boolean(keyword))];
  if (keyword) conditions.push(keywordCondition(keyword));
  if (query.source_table) conditions.push(eq(stockRows.sourceTable, query.source_table));
  if (query.status) conditions.push(eq(stockRows.status, query.status));
  if (query.base_id) conditions.push(eq(stockRows.baseId, query.base_id));
  const location = normalizeLocation(query.warehouse_location);
  if (location) conditions.push(sql`${stockRows.warehouseLocation} LIKE ${`${escapeLike(location)}%`}`);
  return and(...conditions);
}

/** The indexed texts of migration keyword_bigrams, written exactly as there so the index serves them. */
const STOCK_KEYWORD_TEXT = sql`text_bigrams(coalesce(${stockRows.sku}, '') || E'\\n' || coalesce(${stockRows.batchNumber}, '') || E'\\n' || coalesce(${stockRows.serialNumber}, '') || E'\\n' || coalesce(${stockRows.warehouseLocation}, ''))`;
const MATERIAL_KEYWORD_TEXT = sql`text_bigrams(coalesce(${materials.name}, '') || E'\\n' || coalesce(${materials.specModel}, ''))`;

/**
 * A two-character keyword is looked up by its character pair (trigram indexes need three); longer ones
 * go through the trigram indexes, a single character scans. The ILIKE beside it decides the match.
 */
function pairsCondition(keyword: string, indexedPairs: SQL): SQL | undefined {
  return [...keyword].length === 2 ? sql`${indexedPairs} @> text_bigrams(${keyword})` : undefined;
}

const escapeLike = (text: string) => text.replace(/[\\%_]/g, (c) => `\\${c}`);

const qb = new QueryBuilder();

/**
 * A row's company is its material's. Without a keyword the rows are walked in id order: inside the OR
 * the planner cannot turn the IN into a join, so it stays one hash of the company's material ids probed
 * per row, and skipping to a deep page costs a hash probe per row instead of a memoized index lookup
 * into materials (3× slower). With a keyword the few matching rows drive the plan, and a plain IN (a
 * semi-join) lets them be checked one by one; the hashed form would make PostgreSQL scan every row.
 */
function companyOfRowCondition(scope: CompanyScope, rowsFromKeyword: boolean): SQL | undefined {
  const ofMaterial = companyCondition(scope, materials.companyName);
  if (!ofMaterial) return undefined;
  const inCompany = inArray(stockRows.baseId, qb.select({ id: materials.id }).from(materials).where(ofMaterial));
  return rowsFromKeyword ? inCompany : sql`(${inCompany} or false)`;
}

/**
 * Case-insensitive substring over sku, batch, serial and location of the row and the name and spec of
 * its material. Written as "id in (rows matching by their own columns, union rows of matching
 * materials)" rather than one OR across the join, so every column is searched through its trigram
 * index; the rows matched are exactly those of the OR.
 */
function keywordCondition(keyword: string): SQL {
  const byOwnColumns = qb
    .select({ id: stockRows.id })
    .from(stockRows)
    .where(
      and(
        pairsCondition(keyword, STOCK_KEYWORD_TEXT),
        or(
          containsIgnoringCase(stockRows.sku, keyword),
          containsIgnoringCase(stockRows.batchNumber, keyword),
          containsIgnoringCase(stockRows.serialNumber, keyword),
          containsIgnoringCase(stockRows.warehouseLocation, keyword),
        ),
      ),
    );
  const matchingMaterials = qb
    .select({ id: materials.id })
    .from(materials)
    .where(and(pairsCondition(keyword, MATERIAL_KEYWORD_TEXT), or(containsIgnoringCase(materials.name, keyword), containsIgnoringCase(materials.specModel, keyword))));
  const byMaterial = qb.select({ id: stockRows.id }).from(stockRows).where(inArray(stockRows.baseId, matchingMaterials));
  return inArray(stockRows.id, byOwnColumns.unionAll(byMaterial));
}
