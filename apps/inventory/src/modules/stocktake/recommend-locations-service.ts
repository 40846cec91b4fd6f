import { sql, type SQL } from 'drizzle-orm';
import { beijingDate, companyCondition, queryRows, type UseCaseContext } from '@wms/platform';
import type { RecommendedLocation, RecommendQuery } from './schemas.js';

const DAY_MS = 24 * 3600_000;

/**
 * GET /stocktake/recommend-locations (spec 4.6 rule 6, §8): the locations with the most movements in the
 * last `days` days, for choosing an active-location scope. Movements: outbound lines (location of the stock
 * row, else the line's snapshot when the row is gone), stock-ins (a row whose in_date or production_date
 * falls in the window, at its location), borrow dispatches (at the line's own location, spec 4.6 rule 6; the
 * shelf the goods left, the stock row's location, when the dispatch named none), and stock
 * moves (both the location left and the one entered). Scrap and repair have no location. Nothing is stored:
 * one aggregate query per call.
 */
export async function recommendLocations(ctx: UseCaseContext, query: RecommendQuery): Promise<RecommendedLocation[]> {
  const days = query.days ?? 30;
  const topN = query.top_n ?? 50;
  const scope = ctx.scope(query.company);
  const since = new Date(ctx.now.getTime() - days * DAY_MS);
  const sinceIso = since.toISOString();
  const sinceDate = beijingDate(since);
  const inScope = (column: string): SQL => companyCondition(scope, sql.raw(column)) ?? sql`true`;
  const rows = await ctx.read((q) =>
    queryRows<{ full_path: string; moves: number; sku_count: number; last_move: string | Date }>(
      q,
      sql`with events as (
            select coalesce(s.warehouse_location, o.warehouse_location) as loc, o.stock_id, o.outbound_time as at
              from trans_outbound o left join stock_rows s on s.id = o.stock_id
             where o.outbound_time >= ${sinceIso}::timestamptz and ${inScope('o.company_name')}
            union all
            select s.warehouse_location, s.id,
                   (greatest(s.in_date, s.production_date)::timestamp at time zone 'Asia/Shanghai')
              from stock_rows s join materials m on m.id = s.base_id
             where greatest(s.in_date, s.production_date) >= ${sinceDate}::date and ${inScope('m.company_name')}
            union all
            select coalesce(nullif(b.location, ''), s.warehouse_location), b.stock_id, b.borrowed_at
              from trans_borrow b left join stock_rows s on s.id = b.stock_id
             where b.split_from_id is null and b.borrowed_at >= ${sinceIso}::timestamptz and ${inScope('b.company_name')}
            union all
            select mv.from_location, mv.stock_id, mv.moved_at from stock_moves mv
             where mv.moved_at >= ${sinceIso}::timestamptz and ${inScope('mv.company_name')}
            union all
            select mv.to_location, mv.to_stock_id, mv.moved_at from stock_moves mv
             where mv.moved_at >= ${sinceIso}::timestamptz and ${inScope('mv.company_name')}
          )
          select loc as full_path, count(*)::int as moves, count(distinct stock_id)::int as sku_count, max(at) as last_move
            from events where loc is not null and loc <> ''
           group by loc
           order by moves desc, last_move desc, loc
           limit ${topN}`,
    ),
  );
  return rows.map((row) => ({ full_path: row.full_path, moves: row.moves, sku_count: row.sku_count, last_move: new Date(row.last_move).toISOString() }));
}
