import { count, desc } from 'drizzle-orm';
import { can, pageOf, pagingOf, type Page, type UseCaseContext } from '@wms/platform';
import { transScrap } from '../../db/schema/index.js';
import { toScrapRecordView } from './record-mapper.js';
import { scrapRecordsWhere } from './records-filter.js';
import { SCRAP_LOSS_AMOUNT } from './request-access.js';
import type { ScrapRecordsQuery, ScrapRecordView } from './schemas.js';

/**
 * GET /scrap/records (spec 4.4): scrapped units, newest first, paged in the database. 库存报废 also
 * matches records without a category; cost_at_scrap and total_loss only with scrap_list:loss_amount.
 */
export function listScrapRecords(ctx: UseCaseContext, query: ScrapRecordsQuery): Promise<Page<ScrapRecordView>> {
  const paging = pagingOf(query);
  const where = scrapRecordsWhere(ctx, query);
  const showAmounts = can(ctx.actor, SCRAP_LOSS_AMOUNT);
  return ctx.read(async (q) => {
    const rows = await q
      .select()
      .from(transScrap)
      .where(where)
      .orderBy(desc(transScrap.scrappedAt), desc(transScrap.id))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(transScrap).where(where);
    return pageOf(
      rows.map((row) => toScrapRecordView(row, showAmounts)),
      total?.n ?? 0,
      paging,
    );
  });
}
