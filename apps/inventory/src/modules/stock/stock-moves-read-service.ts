import { and, count, desc, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { companyCondition, keywordPattern, type Page, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { materials, stockMoves } from '../../db/schema/index.js';
import { normalizeLocation } from './location.js';
import type { LocationMovesQuery, RowMovesQuery, StockMoveView } from './move-schemas.js';
import { toStockMoveView } from './stock-move-mapper.js';
import { readScopedStockRow } from './stock-rows.js';

/**
 * The moves of one row, newest first: moves out of it and the split that created it. Read from the move
 * records (snapshots), so the history of a deleted row stays readable; a row neither in the caller's scope
 * nor named by a move of it is 404 (whatever the filters).
 */
export async function listMovesOfRow(ctx: UseCaseContext, id: number, query: RowMovesQuery): Promise<Page<StockMoveView>> {
  const scope = ctx.scope();
  const ofRow = and(or(eq(stockMoves.stockId, id), eq(stockMoves.toStockId, id)), companyCondition(scope, stockMoves.companyName));
  const filters = moveFilters(query);
  const page = await movesPage(ctx, and(ofRow, filters), query);
  if (page.total === 0) {
    await ctx.read(async (q) => {
      const [any] = filters ? await q.select({ n: count() }).from(stockMoves).where(ofRow) : [{ n: 0 }];
      if (!any?.n) await readScopedStockRow(q, scope, id); // 404 when not in scope
    });
  }
  return page;
}

/** Moves out of or into a location (a plain prefix of the normalised path, like the stock list filter). */
export async function listMovesAtLocation(ctx: UseCaseContext, query: LocationMovesQuery): Promise<Page<StockMoveView>> {
  const location = normalizeLocation(query.location);
  const atLocation = location
    ? or(sql`starts_with(${stockMoves.fromLocation}, ${location})`, sql`starts_with(${stockMoves.toLocation}, ${location})`)
    : undefined;
  return movesPage(ctx, and(atLocation, companyCondition(ctx.scope(query.company), stockMoves.companyName), moveFilters(query)), query);
}

/**
 * keyword (case-insensitive substring) on the snapshots — sku, the split's sku, either location, the operator's
 * account or name — or the moved material's name or spec; start_date / end_date on moved_at.
 */
function moveFilters(query: RowMovesQuery): SQL | undefined {
  const pattern = keywordPattern(query.keyword);
  return and(
    pattern
      ? or(
          ilike(stockMoves.sku, pattern),
          ilike(stockMoves.toSku, pattern),
          ilike(stockMoves.fromLocation, pattern),
          ilike(stockMoves.toLocation, pattern),
          ilike(stockMoves.operator, pattern),
          ilike(stockMoves.operatorName, pattern),
          sql`exists (select 1 from ${materials} where ${materials.id} = ${stockMoves.baseId} and (${materials.name} ilike ${pattern} or ${materials.specModel} ilike ${pattern}))`,
        )
      : undefined,
    timeRangeCondition(stockMoves.movedAt, query.start_date, query.end_date),
  );
}

async function movesPage(ctx: UseCaseContext, where: SQL | undefined, query: RowMovesQuery): Promise<Page<StockMoveView>> {
  const paging = pagingOf(query);
  const [rows, [total]] = await ctx.read((q) =>
    Promise.all([
      q.select().from(stockMoves).where(where).orderBy(desc(stockMoves.movedAt), desc(stockMoves.id)).limit(paging.limit).offset(paging.offset),
      q.select({ n: count() }).from(stockMoves).where(where),
    ]),
  );
  return pageOf(rows.map(toStockMoveView), total?.n ?? 0, paging);
}
