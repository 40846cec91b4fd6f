import { and, eq, ilike, or, sql, type SQL } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import { Value } from 'typebox/value';
import { companyCondition, likePattern, timeRangeCondition, type UseCaseContext, validationFailed } from '@wms/platform';
import { STOCK_KINDS, transOutbound } from '../../db/schema/index.js';
import { OutboundTypeSchema, type OutboundListQuery, type SearchType } from './schemas.js';

/** The keys GET /outbound accepts in advancedFilters (a JSON object); unknown keys are ignored. */
const AdvancedFilters = Type.Object({
  outbound_type: Type.Optional(OutboundTypeSchema),
  applicant_id: Type.Optional(Type.Integer({ minimum: 1 })),
  request_id: Type.Optional(Type.Integer({ minimum: 1 })),
  base_id: Type.Optional(Type.Integer({ minimum: 1 })),
  source_table: Type.Optional(Type.Union(STOCK_KINDS.map((kind) => Type.Literal(kind)))),
  warehouse_location: Type.Optional(Type.String({ maxLength: 255 })),
});
type AdvancedFilters = Static<typeof AdvancedFilters>;

function parseAdvancedFilters(raw: string | undefined): AdvancedFilters {
  if (!raw?.trim()) return {};
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch {
    throw validationFailed('advancedFilters 不是合法的 JSON', { field: 'advancedFilters' });
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed) || !Value.Check(AdvancedFilters, parsed)) {
    throw validationFailed(
      'advancedFilters 应为对象，可含 outbound_type, applicant_id, request_id, base_id, source_table, warehouse_location',
      { field: 'advancedFilters' },
    );
  }
  return parsed;
}

function keywordCondition(keyword: string | undefined, searchType: SearchType = 'all'): SQL | undefined {
  const text = keyword?.trim();
  if (!text) return undefined;
  const pattern = likePattern(text);
  const byType: Record<Exclude<SearchType, 'all'>, SQL | undefined> = {
    outbound_no: ilike(transOutbound.outboundNo, pattern),
    material: or(ilike(transOutbound.materialName, pattern), ilike(transOutbound.specModel, pattern)),
    sku: ilike(transOutbound.sku, pattern),
    consumer: ilike(transOutbound.consumerName, pattern),
    operator: ilike(transOutbound.operator, pattern),
  };
  return searchType === 'all' ? or(...Object.values(byType)) : byType[searchType];
}

/**
 * Where a shipped line's goods sit: the stock row is the authority (spec 2.5: "Location may be empty on old
 * rows; the stock row is the authority"); the location copied at execution stands only for a row that was
 * deleted since.
 */
export const outboundLineLocation = sql<string>`coalesce((select s.warehouse_location from stock_rows s where s.id = ${transOutbound.stockId}), ${transOutbound.warehouseLocation})`;

/** The WHERE of the outbound listing, on trans_outbound lines: a group matches when any of its lines does. */
export function outboundLineConditions(ctx: UseCaseContext, query: OutboundListQuery): SQL | undefined {
  const filters = parseAdvancedFilters(query.advancedFilters);
  const location = filters.warehouse_location?.trim();
  return and(
    companyCondition(ctx.scope(query.company), transOutbound.companyName),
    keywordCondition(query.keyword, query.search_type),
    filters.outbound_type ? eq(transOutbound.outboundType, filters.outbound_type) : undefined,
    filters.applicant_id ? eq(transOutbound.applicantId, filters.applicant_id) : undefined,
    filters.request_id ? eq(transOutbound.requestId, filters.request_id) : undefined,
    filters.base_id ? eq(transOutbound.baseId, filters.base_id) : undefined,
    filters.source_table ? eq(transOutbound.sourceTable, filters.source_table) : undefined,
    // a location prefix: the pattern without its leading %
    location ? ilike(outboundLineLocation, likePattern(location).slice(1)) : undefined,
    timeRangeCondition(transOutbound.outboundTime, query.start_date, query.end_date),
  );
}
