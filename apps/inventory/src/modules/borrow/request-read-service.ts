import { and, count, desc, eq } from 'drizzle-orm';
import { type Page, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { borrowRequests, type BorrowStatus } from '../../db/schema/index.js';
import { readRequest } from '../request-workflow/request-access.js';
import { requestKeywordCondition } from '../request-workflow/request-keyword.js';
import { visibleRequests } from './request-access.js';
import { borrowFlow } from './request-flow.js';
import { toRequestViewOf, toRequestViews } from './request-views.js';
import type { BorrowRequestListQuery, BorrowRequestView } from './schemas.js';

/** GET /borrow/request: approvers and dispatchers see their company's requests, everybody else their own. */
export async function listBorrowRequests(ctx: UseCaseContext, query: BorrowRequestListQuery): Promise<Page<BorrowRequestView>> {
  const paging = pagingOf(query);
  const where = and(
    visibleRequests(ctx, query.company),
    query.status !== undefined ? eq(borrowRequests.status, query.status as BorrowStatus) : undefined,
    requestKeywordCondition(borrowRequests, query.keyword),
    timeRangeCondition(borrowRequests.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q.select().from(borrowRequests).where(where).orderBy(desc(borrowRequests.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(borrowRequests).where(where);
    return pageOf(await toRequestViews(q, rows), total?.n ?? 0, paging);
  });
}

export function getBorrowRequest(ctx: UseCaseContext, id: number): Promise<BorrowRequestView> {
  return ctx.read(async (q) => toRequestViewOf(q, await readRequest(q, borrowFlow, id, visibleRequests(ctx))));
}
