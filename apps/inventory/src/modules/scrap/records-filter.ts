import { and, eq, isNull, or, type SQL } from 'drizzle-orm';
import { companyCondition, keywordMatch, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { transScrap } from '../../db/schema/index.js';
import type { ScrapRecordsQuery } from './schemas.js';

/** The category old records count as (spec 2.8): picking it also matches records without a category. */
export const DEFAULT_CATEGORY = '库存报废';

/** The one WHERE of the records list and its export (spec 4.4 "same filters"), on snapshots, never joins. */
export function scrapRecordsWhere(ctx: UseCaseContext, query: Omit<ScrapRecordsQuery, 'page' | 'limit' | 'pageSize'>): SQL | undefined {
  return and(
    companyCondition(ctx.scope(query.company), transScrap.companyName),
    keywordCondition(query.keyword),
    categoryCondition(query.reason_category),
    query.source_table ? eq(transScrap.sourceTable, query.source_table) : undefined,
    timeRangeCondition(transScrap.scrappedAt, query.start_date, query.end_date),
  );
}

function categoryCondition(category: string | undefined): SQL | undefined {
  if (!category) return undefined;
  if (category === DEFAULT_CATEGORY) return or(eq(transScrap.reasonCategory, DEFAULT_CATEGORY), isNull(transScrap.reasonCategory));
  return eq(transScrap.reasonCategory, category as never);
}

function keywordCondition(keyword: string | undefined): SQL | undefined {
  return keywordMatch(keyword, transScrap.sku, transScrap.materialName, transScrap.specModel, transScrap.reason, transScrap.operator, transScrap.trackRef);
}
