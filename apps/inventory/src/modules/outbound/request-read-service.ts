import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { type Page, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { outboundRequests } from '../../db/schema/index.js';
import { readRequest } from '../request-workflow/request-access.js';
import { requestKeywordCondition } from '../request-workflow/request-keyword.js';
import { ownRequests, visibleRequests } from './request-access.js';
import { outboundFlow } from './request-flow.js';
import { toRequestViewOf, toRequestViews } from './request-lookups.js';
import type { OutboundRequestView, RequestListQuery } from './schemas.js';

async function pageOfRequests(ctx: UseCaseContext, query: RequestListQuery, visible: SQL | undefined) {
  const paging = pagingOf(query);
  const where = and(
    visible,
    query.status !== undefined ? eq(outboundRequests.status, query.status as never) : undefined,
    query.outbound_type ? eq(outboundRequests.outboundType, query.outbound_type) : undefined,
    requestKeywordCondition(outboundRequests, query.keyword),
    timeRangeCondition(outboundRequests.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q): Promise<Page<OutboundRequestView>> => {
    const rows = await q
      .select()
      .from(outboundRequests)
      .where(where)
      .orderBy(desc(outboundRequests.id))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(outboundRequests).where(where);
    return pageOf(await toRequestViews(q, rows), total?.n ?? 0, paging);
  });
}

/** GET /outbound/request: approvers see their company's requests, everybody else their own. */
export function listOutboundRequests(ctx: UseCaseContext, query: RequestListQuery) {
  return pageOfRequests(ctx, query, visibleRequests(ctx, query.company));
}

/** GET /outbound/my-requests: the applicant is always the caller, whatever the caller may see otherwise. */
export function listMyOutboundRequests(ctx: UseCaseContext, query: RequestListQuery) {
  return pageOfRequests(ctx, query, ownRequests(ctx, query.company));
}

export function getOutboundRequest(ctx: UseCaseContext, id: number): Promise<OutboundRequestView> {
  return ctx.read(async (q) => toRequestViewOf(q, await readRequest(q, outboundFlow, id, visibleRequests(ctx))));
}
