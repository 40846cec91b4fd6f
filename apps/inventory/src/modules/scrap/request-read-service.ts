import { and, count, desc, eq } from 'drizzle-orm';
import { type Page, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { scrapRequests } from '../../db/schema/index.js';
import { readRequest } from '../request-workflow/request-access.js';
import { requestKeywordCondition } from '../request-workflow/request-keyword.js';
import { visibleRequests } from './request-access.js';
import { scrapFlow } from './request-flow.js';
import { toScrapRequestViewOf, toScrapRequestViews } from './request-views.js';
import type { ScrapRequestListQuery, ScrapRequestView } from './schemas.js';

/** GET /scrap/request: executors see their company's requests, everybody else their own and those they may approve. */
export function listScrapRequests(ctx: UseCaseContext, query: ScrapRequestListQuery): Promise<Page<ScrapRequestView>> {
  const paging = pagingOf(query);
  const where = and(
    visibleRequests(ctx, query.company),
    query.status !== undefined ? eq(scrapRequests.status, query.status as never) : undefined,
    query.mode ? eq(scrapRequests.mode, query.mode) : undefined,
    query.reason_category ? eq(scrapRequests.reasonCategory, query.reason_category) : undefined,
    requestKeywordCondition(scrapRequests, query.keyword, [scrapRequests.reason, scrapRequests.trackRef]),
    timeRangeCondition(scrapRequests.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q.select().from(scrapRequests).where(where).orderBy(desc(scrapRequests.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(scrapRequests).where(where);
    return pageOf(await toScrapRequestViews(q, rows), total?.n ?? 0, paging);
  });
}

export function getScrapRequest(ctx: UseCaseContext, id: number): Promise<ScrapRequestView> {
  return ctx.read(async (q) => toScrapRequestViewOf(q, await readRequest(q, scrapFlow, id, visibleRequests(ctx))));
}
