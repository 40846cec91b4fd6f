import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { companyCondition, keywordMatch, type Page, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { transDefectiveGoods } from '../../db/schema/index.js';
import { toLedgerEntryView } from './ledger-mapper.js';
import type { LedgerEntryView, LedgerListQuery } from './schemas.js';

/** GET /stock/defective: the in-custody ledger of the caller's company scope, newest first; start_date/end_date on the entry's time. */
export async function listLedger(ctx: UseCaseContext, query: LedgerListQuery): Promise<Page<LedgerEntryView>> {
  const paging = pagingOf(query);
  const where = and(
    companyCondition(ctx.scope(query.company), transDefectiveGoods.companyName),
    keywordCondition(query.keyword),
    query.status ? eq(transDefectiveGoods.status, query.status) : undefined,
    timeRangeCondition(transDefectiveGoods.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q
      .select()
      .from(transDefectiveGoods)
      .where(where)
      .orderBy(desc(transDefectiveGoods.createdAt), desc(transDefectiveGoods.id))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(transDefectiveGoods).where(where);
    return pageOf(rows.map(toLedgerEntryView), total?.n ?? 0, paging);
  });
}

function keywordCondition(keyword: string | undefined): SQL | undefined {
  return keywordMatch(keyword, transDefectiveGoods.sku, transDefectiveGoods.materialName, transDefectiveGoods.specModel);
}
