import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import { companyCondition, notFound, queryRows, type UseCaseContext } from '@wms/platform';
import { transBorrow } from '../../db/schema/index.js';
import { eventsOfLines } from './history-events.js';
import type { HistoryEventView } from './schemas.js';

/**
 * GET /borrow/:id/history: the events of one line, oldest first. A line split off another continues
 * its parent's history: the parent's events up to the split (and the parent's parent's, and so on).
 */
export function lineHistory(ctx: UseCaseContext, id: number): Promise<HistoryEventView[]> {
  const scope = companyCondition(ctx.scope(), transBorrow.companyName) ?? sql`true`;
  return ctx.read(async (q) => {
    // The line and its ancestors, each with the instant after which its events are not this line's.
    const lineage = await queryRows<{ id: number; cutoff_ms: number | null }>(
      q,
      sql`with recursive lineage(id, parent_id, split_at, cutoff) as (
            select id, split_from_id, split_at, null::timestamptz from trans_borrow where id = ${id} and ${scope}
            union all
            select p.id, p.split_from_id, p.split_at, l.split_at
              from trans_borrow p join lineage l on p.id = l.parent_id
          )
          select id, (extract(epoch from cutoff) * 1000)::float8 as cutoff_ms from lineage`,
    );
    if (lineage.length === 0) throw notFound('借用记录');
    const cutoffs = new Map(lineage.map((row) => [Number(row.id), row.cutoff_ms === null ? null : Number(row.cutoff_ms)]));
    const lines = await q.select().from(transBorrow).where(inArray(transBorrow.id, [...cutoffs.keys()]));
    const events = await eventsOfLines(q, lines);
    return events
      .filter((event) => {
        const cutoff = cutoffs.get(event.borrowId);
        return cutoff === null || cutoff === undefined || event.at.getTime() <= cutoff;
      })
      .map((event) => event.view);
  });
}

/** GET /borrow/slip/:no/history: the events of every line of a slip in one answer, by real timestamp. */
export function slipHistory(ctx: UseCaseContext, borrowNo: string): Promise<HistoryEventView[]> {
  return ctx.read(async (q) => {
    const lines = await q
      .select()
      .from(transBorrow)
      .where(and(eq(transBorrow.borrowNo, borrowNo.trim()), companyCondition(ctx.scope(), transBorrow.companyName)))
      .orderBy(asc(transBorrow.id));
    if (lines.length === 0) throw notFound('借用单');
    return (await eventsOfLines(q, lines)).map((event) => event.view);
  });
}
