import { and, eq, sql, type SQL } from 'drizzle-orm';
import { keywordPattern, pageOf, pagingOf, timeRangeCondition, type Page, type UseCaseContext } from '@wms/platform';
import { stocktakeDrafts } from '../../db/schema/index.js';
import { countDrafts, readDraftViews } from './draft-views.js';
import type { DraftListQuery, DraftView } from './schemas.js';
import { assertActive, lockSession, requireSession } from './sessions.js';

/**
 * keyword of a list of counts (case-insensitive substring, wildcards literal): the draft's uuid (the row's sku),
 * counter or remark, its material's name or spec, or its stock row's location, batch or serial.
 */
export function draftKeywordCondition(keyword: string | undefined, draft: SQL): SQL | undefined {
  const pattern = keywordPattern(keyword);
  if (!pattern) return undefined;
  return sql`(${draft}.uuid ilike ${pattern} or ${draft}.user_id ilike ${pattern} or ${draft}.remark ilike ${pattern}
    or exists (select 1 from materials km where km.id = ${draft}.base_id and (km.name ilike ${pattern} or km.spec_model ilike ${pattern}))
    or exists (select 1 from stock_rows ks where ks.id = ${draft}.stock_id
      and (ks.warehouse_location ilike ${pattern} or ks.batch_number ilike ${pattern} or ks.serial_number ilike ${pattern})))`;
}

/**
 * GET /draft/list: the session's drafts, newest scan first, paged in the database; uuid is an exact filter,
 * keyword as draftKeywordCondition, start_date / end_date on scan_time.
 */
export async function listDrafts(ctx: UseCaseContext, query: DraftListQuery): Promise<Page<DraftView>> {
  const paging = pagingOf(query);
  const filters = and(
    draftKeywordCondition(query.keyword, sql`${stocktakeDrafts}`),
    timeRangeCondition(stocktakeDrafts.scanTime, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    await requireSession(q, ctx.scope(), query.session_id);
    const where = and(
      eq(stocktakeDrafts.sessionId, query.session_id),
      query.uuid !== undefined ? eq(stocktakeDrafts.uuid, query.uuid) : undefined,
      filters,
    );
    const [items, total] = await Promise.all([readDraftViews(q, where, paging), countDrafts(q, where)]);
    return pageOf(items, total, paging);
  });
}

/** POST /draft/clear: removes the counts of an active session (a finished one keeps them for /adjust). */
export async function clearDrafts(ctx: UseCaseContext, sessionId: number): Promise<{ session_id: number; cleared: number }> {
  return ctx.transaction(async (tx) => {
    const session = await lockSession(tx, ctx.scope(), sessionId, 'update');
    assertActive(session);
    const removed = await tx.delete(stocktakeDrafts).where(eq(stocktakeDrafts.sessionId, session.id)).returning({ id: stocktakeDrafts.id });
    return { session_id: session.id, cleared: removed.length };
  });
}
