import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { companyCondition, keywordMatch, type Page, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { transReturn } from '../../db/schema/index.js';
import { toReturnView } from './return-mapper.js';
import type { ReturnListQuery, ReturnView } from './schemas.js';

/**
 * GET /outbound/returns (spec 4.1): returns newest first. Company isolation is on the snapshot taken at
 * return time, never a join. start_date / end_date follow the outbound listing's rules (a bare date is a
 * Beijing day, the end date includes its whole day, each bound works alone).
 */
export async function listReturns(ctx: UseCaseContext, query: ReturnListQuery): Promise<Page<ReturnView>> {
  const paging = pagingOf(query);
  const where = and(
    companyCondition(ctx.scope(query.company), transReturn.companyName),
    keywordCondition(query.keyword),
    query.return_type ? eq(transReturn.returnType, query.return_type) : undefined,
    timeRangeCondition(transReturn.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q
      .select()
      .from(transReturn)
      .where(where)
      .orderBy(desc(transReturn.createdAt), desc(transReturn.id))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(transReturn).where(where);
    return pageOf(rows.map(toReturnView), total?.n ?? 0, paging);
  });
}

function keywordCondition(keyword: string | undefined): SQL | undefined {
  return keywordMatch(keyword, transReturn.outboundNo, transReturn.materialName, transReturn.specModel, transReturn.sku, transReturn.reason, transReturn.operator);
}
