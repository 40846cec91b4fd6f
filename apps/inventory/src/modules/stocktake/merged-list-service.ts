import { and, eq, sql, type SQL } from 'drizzle-orm';
import { AppError, pagingOf, queryRows, type Actor, type CompanyScope, type Paging, type Queryable, type UseCaseContext } from '@wms/platform';
import { stocktakeSessions, type StocktakeSessionRow } from '../../db/schema/index.js';
import {
  COUNT_ORDER,
  COUNTED_COLUMNS,
  countedRowsCte,
  keywordCondition,
  statusCondition,
  toCountItemView,
  type CountedRowRecord,
} from './counted-rows.js';
import type { AllItemsQuery, CountItemView, MergedListQuery } from './schemas.js';
import { bookHidden, companyOfActiveSession, readSessionUnlessForeign } from './sessions.js';

interface CountedPage {
  list: CountItemView[];
  total: number;
  total_scanned: number;
  mode: string;
  page: number;
  limit: number;
}

/**
 * GET /draft/merged-list (spec 4.6 rule 3, contract §8): the session's rows with their counts, one page,
 * in one statement. A session that does not exist, or none named (the spec makes only draft/clear's
 * session_id required), answers the caller's company rows as blind (book hidden); another company's is 404.
 * match and diff would tell a blind counter the book, so they are 400 while a blind session is active.
 */
export async function mergedList(ctx: UseCaseContext, query: MergedListQuery): Promise<CountedPage> {
  const scope = ctx.scope();
  const sessionId = query.session_id;
  const session = sessionId === undefined ? null : ((await ctx.read((q) => readSessionUnlessForeign(q, scope, sessionId))) ?? null);
  const hidden = bookHidden(session);
  if (hidden && (query.status_filter === 'match' || query.status_filter === 'diff')) {
    throw new AppError('STATUS_NOT_ALLOWED', '盲盘进行中，不能按一致/差异筛选（账面数量在盘点结束后可见）', { field: 'status_filter' });
  }
  const paging = pagingOf(query);
  const companies: CompanyScope = session ? { kind: 'one', company: session.companyName } : scope;
  const page = await ctx.read((q) =>
    countedPage(q, { session, companies, hidden }, and(keywordCondition(query.keyword), statusCondition(query.status_filter)), paging),
  );
  return { list: page.items, total: page.total, total_scanned: page.totalScanned, mode: session?.mode ?? 'blind', page: paging.page, limit: paging.limit };
}

/**
 * GET /stocktake/all-items: every item of a session (the given one, else the company's active session) with
 * its count, paged, for a handheld to load the whole list; same rows, keyword and blind rule as the merged list.
 */
export async function allItems(ctx: UseCaseContext, query: AllItemsQuery) {
  const scope = ctx.scope();
  const session = await ctx.read((q) =>
    query.session_id !== undefined ? readSessionUnlessForeign(q, scope, query.session_id) : activeSessionOf(q, ctx.actor, query.company),
  );
  const hidden = bookHidden(session);
  const paging = pagingOf(query);
  const companies: CompanyScope = session ? { kind: 'one', company: session.companyName } : ctx.scope(query.company);
  const page = await ctx.read((q) => countedPage(q, { session: session ?? null, companies, hidden }, keywordCondition(query.keyword), paging));
  return {
    items: page.items,
    total: page.total,
    total_scanned: page.totalScanned,
    mode: session?.mode ?? 'blind',
    session_id: session?.id ?? null,
    page: paging.page,
    limit: paging.limit,
  };
}

async function activeSessionOf(q: Queryable, actor: Actor, requestedCompany: string | undefined): Promise<StocktakeSessionRow | undefined> {
  const company = await companyOfActiveSession(q, actor, requestedCompany);
  if (company === null) return undefined;
  const [session] = await q
    .select()
    .from(stocktakeSessions)
    .where(and(eq(stocktakeSessions.companyName, company), eq(stocktakeSessions.status, 'active')));
  return session;
}

/** One statement: the filtered total, the session's scanned total and the page as JSON. */
async function countedPage(
  q: Queryable,
  source: Parameters<typeof countedRowsCte>[0],
  filter: SQL | undefined,
  paging: Paging,
): Promise<{ items: CountItemView[]; total: number; totalScanned: number }> {
  const [result] = await queryRows<{ total: number; total_scanned: number; list: CountedRowRecord[] | null }>(
    q,
    sql`with ${countedRowsCte(source)},
      filtered as (select * from counted c ${filter ? sql`where ${filter}` : sql``})
      select (select count(*) from filtered)::int as total,
             (select count(*) from counted c where c.scanned)::int as total_scanned,
             (select json_agg(p order by p.warehouse_location, p.stock_id) from (select ${COUNTED_COLUMNS} from filtered c order by ${COUNT_ORDER}
                limit ${paging.limit} offset ${paging.offset}) p) as list`,
  );
  return {
    items: (result?.list ?? []).map((row) => toCountItemView(row, source.hidden)),
    total: result?.total ?? 0,
    totalScanned: result?.total_scanned ?? 0,
  };
}
