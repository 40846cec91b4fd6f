import { and, asc, count, desc, eq, inArray, or, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { companyCondition, type CompanyScope, containsIgnoringCase, dayRangeCondition, type Page, pageOf, pagingOf, type UseCaseContext } from '@wms/platform';
import { materials, stockRowCompanies, stockRows, type StockKind } from '../../db/schema/index.js';
import { normalizeLocation } from './location.js';
import { priceVisibilityOf } from './price-visibility.js';
import type { StockFilter, StockListQuery, StockRowView } from './schemas.js';
import { toStockRowView } from './stock-mapper.js';
import { flattenJoined, readScopedStockRow, selectStockRows } from './stock-rows.js';

export async function getStockRow(ctx: UseCaseContext, id: number, sourceTable?: StockKind): Promise<StockRowView> {
  const row = await ctx.read((q) => readScopedStockRow(q, ctx.scope(), id, sourceTable));
  return toStockRowView(row, priceVisibilityOf(ctx.actor));
}

/**
 * Newest first. The matching rows are one subquery of stock row ids (see matchingRowIds), so the count
 * needs no join and the page is found on those ids alone; only its rows are then joined with their
 * materials. The count comes first so a page in the older half is read from the oldest end (ascending,
 * then reversed): OFFSET walks at most half of the matching rows, and the last page costs what the first does.
 */
export async function listStockRows(ctx: UseCaseContext, query: StockListQuery): Promise<Page<StockRowView>> {
  const paging = pagingOf(query);
  const matching = matchingRowIds(ctx.scope(query.company), query);
  const prices = priceVisibilityOf(ctx.actor);
  return ctx.read(async (q) => {
    const [counted] = await q.select({ n: count() }).from(matching);
    const total = counted?.n ?? 0;
    const window = pageWindow(total, paging.offset, paging.limit);
    if (!window) return pageOf([], total, paging);
    const direction = window.newestFirst ? desc : asc;
    const pageIds = q.select({ id: matching.id }).from(matching).orderBy(direction(matching.id)).limit(window.limit).offset(window.offset);
    const rows = await selectStockRows(q).where(inArray(stockRows.id, pageIds)).orderBy(direction(stockRows.id));
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

/**
 * The ids of the rows the list shows. One company's rows without filters: its range of stock_row_companies.
 * Otherwise, without a keyword, one walk of stock_rows under every condition.
 * With one, the union of two index-driven sets, each under every other condition: rows whose own texts
 * match, and rows of matching materials (their company checked on the material itself). The union is
 * exactly the rows of "company and filters and (own texts or material texts match)", and no stock row is
 * read that matches neither: an id-IN of the union under the outer conditions made PostgreSQL read every
 * matching row twice and hash the company's materials (10× slower on a warehouse of 100,000 rows).
 */
export function matchingRowIds(scope: CompanyScope, query: StockFilter) {
  const keyword = query.keyword?.trim();
  const filters = rowFilters(query);
  if (!keyword && scope.kind === 'one' && filters.every((filter) => filter === undefined)) {
    // the company's rows alone: one range of its index, stock_rows not read (decisions Platform 23)
    return qb.select({ id: stockRowCompanies.stockId }).from(stockRowCompanies).where(eq(stockRowCompanies.companyName, scope.company)).as('matching');
  }
  if (!keyword) {
    return qb.select({ id: stockRows.id }).from(stockRows).where(and(companyOfRowCondition(scope, false), ...filters)).as('matching');
  }
  const byOwnColumns = qb
    .select({ id: stockRows.id })
    .from(stockRows)
    .where(and(companyOfRowCondition(scope, true), ownTextsMatch(keyword), ...filters));
  const byMaterial = qb
    .select({ id: stockRows.id })
    .from(stockRows)
    .where(and(ofAnyMaterial(matchingMaterials(scope, keyword)), ...filters));
  return byOwnColumns.union(byMaterial).as('matching');
}

/** The list's conditions on a row's own columns, other than its company and the keyword. */
function rowFilters(query: StockFilter): (SQL | undefined)[] {
  const location = normalizeLocation(query.warehouse_location);
  return [
    query.source_table ? eq(stockRows.sourceTable, query.source_table) : undefined,
    query.status ? eq(stockRows.status, query.status) : undefined,
    query.base_id ? eq(stockRows.baseId, query.base_id) : undefined,
    location ? sql`${stockRows.warehouseLocation} LIKE ${`${escapeLike(location)}%`}` : undefined,
    // contract §8 list parameters, on the stock-in date
    dayRangeCondition(stockRows.inDate, query.start_date, query.end_date),
  ];
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

/** Case-insensitive substring of the row's sku, batch, serial or location, through their trigram indexes. */
function ownTextsMatch(keyword: string): SQL | undefined {
  return and(
    pairsCondition(keyword, STOCK_KEYWORD_TEXT),
    or(
      containsIgnoringCase(stockRows.sku, keyword),
      containsIgnoringCase(stockRows.batchNumber, keyword),
      containsIgnoringCase(stockRows.serialNumber, keyword),
      containsIgnoringCase(stockRows.warehouseLocation, keyword),
    ),
  );
}

/** The materials in scope whose name or spec contains the keyword (case-insensitive). */
function matchingMaterials(scope: CompanyScope, keyword: string) {
  return qb
    .select({ id: materials.id })
    .from(materials)
    .where(
      and(
        pairsCondition(keyword, MATERIAL_KEYWORD_TEXT),
        or(containsIgnoringCase(materials.name, keyword), containsIgnoringCase(materials.specModel, keyword)),
        companyCondition(scope, materials.companyName),
      ),
    );
}

/**
 * Rows of the given materials, as `= any(array(…))` rather than IN: the planner then reads them through
 * the base_id index, where a semi-join's estimate made it scan the whole table for a few thousand rows.
 */
function ofAnyMaterial(materialIds: ReturnType<typeof matchingMaterials>): SQL {
  return sql`${stockRows.baseId} = any(array(${materialIds}))`;
}
