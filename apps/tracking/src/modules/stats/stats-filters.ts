import { and, eq, gte, lt, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import { beijingDate, beijingMidnight, CappedLimit, DateString, validationFailed } from '@wms/platform';
import { products } from '../../db/schema/index.js';
import type { DataScope } from '../identity/data-scope.js';
import { productScopeCondition } from '../products/product-scope.js';
import { LifecyclePhaseSchema } from '../products/schemas.js';
import { isCalendarDate } from '../tasks/due-date.js';

/**
 * What every statistics route shares: Beijing calendar days, date ranges, granularity and the product
 * filter. Statistics count in Asia/Shanghai (UTC+8 all year, no daylight saving), whatever the server's
 * own time zone is.
 */
export const STATS_TIME_ZONE = 'Asia/Shanghai';
const DAY_MS = 86_400_000;

export function addDays(date: string, days: number): string {
  return new Date(Date.parse(`${date}T00:00:00Z`) + days * DAY_MS).toISOString().slice(0, 10);
}

export const daysBetween = (from: string, to: string) => Math.round((Date.parse(`${to}T00:00:00Z`) - Date.parse(`${from}T00:00:00Z`)) / DAY_MS);

/** The first day of the Beijing month of `date` and the first day of the next month. */
export function monthBounds(date: string): { first: string; next: string } {
  const [year, month] = date.split('-').map(Number) as [number, number];
  const next = month === 12 ? `${year + 1}-01-01` : `${year}-${String(month + 1).padStart(2, '0')}-01`;
  return { first: `${date.slice(0, 7)}-01`, next };
}

/** Instants of one Beijing day: [from, to). */
export function dayBounds(date: string): { from: Date; to: Date } {
  return { from: beijingMidnight(date), to: beijingMidnight(addDays(date, 1)) };
}

/** A closed range of Beijing days and the instants it covers: [from, to). */
export interface DateRange {
  startDate: string;
  endDate: string;
  from: Date;
  to: Date;
}

export const DEFAULT_RANGE_DAYS = 30;
export const MAX_DAILY_RANGE_DAYS = 366;
export const MAX_RANGE_DAYS = 1096;

/**
 * The earliest day a statistics date may name. Nothing is that old, and a range reaching back to year 1
 * would send PostgreSQL an instant in year 0, which it refuses without naming the parameter.
 */
export const MIN_STATS_DATE = '1900-01-01';

function checkedDate(value: string | undefined, field: string): string | undefined {
  const text = value?.trim();
  if (!text) return undefined;
  if (!isCalendarDate(text)) throw validationFailed(`${field} 不是有效的日期（应为 YYYY-MM-DD）: ${text}`, { field });
  if (text < MIN_STATS_DATE) throw validationFailed(`${field} 不能早于 ${MIN_STATS_DATE}: ${text}`, { field });
  return text;
}

/**
 * start_date / end_date as Beijing days, both inclusive. Without them: the 30 days ending today. Only
 * start_date: from it to today (or that day alone when it is in the future). Only end_date: the 30 days
 * ending then. start after end, or a range longer than maxDays, is 422 naming the field.
 */
export function dateRangeOf(query: { start_date?: string; end_date?: string }, now: Date, maxDays = MAX_DAILY_RANGE_DAYS): DateRange {
  const start = checkedDate(query.start_date, 'start_date');
  const end = checkedDate(query.end_date, 'end_date');
  const today = beijingDate(now);
  const endDate = end ?? (start && start > today ? start : today);
  const startDate = start ?? addDays(endDate, -(DEFAULT_RANGE_DAYS - 1));
  if (startDate > endDate) throw validationFailed('start_date 不能晚于 end_date', { field: 'end_date' });
  if (daysBetween(startDate, endDate) + 1 > maxDays) throw validationFailed(`统计时间范围不能超过 ${maxDays} 天`, { field: 'start_date' });
  return { startDate, endDate, from: beijingMidnight(startDate), to: beijingMidnight(addDays(endDate, 1)) };
}

/** The range when the caller sent one, else undefined (snapshot routes: everything). */
export function optionalDateRangeOf(query: { start_date?: string; end_date?: string }, now: Date): DateRange | undefined {
  if (!query.start_date?.trim() && !query.end_date?.trim()) return undefined;
  return dateRangeOf(query, now, MAX_RANGE_DAYS);
}

/** `column` inside the range: from ≤ column < to. */
export function withinRange(column: AnyColumn, range: DateRange | undefined): SQL | undefined {
  if (!range) return undefined;
  return and(gte(column, range.from), lt(column, range.to));
}

export const GRANULARITIES = ['day', 'week', 'month'] as const;
export type Granularity = (typeof GRANULARITIES)[number];

/** A granularity as the SQL literal of date_trunc (from a closed list, never from the client's text). */
export const truncUnit = (granularity: Granularity) => sql.raw(`'${granularity}'`);

/** Longest range per granularity: a daily series has at most 366 points. */
export const maxRangeDays = (granularity: Granularity) => (granularity === 'day' ? MAX_DAILY_RANGE_DAYS : MAX_RANGE_DAYS);

/** The Beijing bucket start of a timestamptz column, as date_trunc(unit, local time). */
export const beijingBucket = (column: AnyColumn | SQL, granularity: Granularity) =>
  sql`date_trunc(${truncUnit(granularity)}, ${column} at time zone ${sql.raw(`'${STATS_TIME_ZONE}'`)})`;

// ---- query schemas ----------------------------------------------------------------------------------

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });

export const DateRangeQuery = {
  start_date: Type.Optional(Type.String({ ...DateString, description: '开始日期 YYYY-MM-DD（北京时间，含当天）' })),
  end_date: Type.Optional(Type.String({ ...DateString, description: '结束日期 YYYY-MM-DD（北京时间，含当天整天）' })),
};

/** Narrows the products counted, on top of the caller's data scope (never widens it). */
export const ProductFilterQuery = {
  lifecycle_phase: Type.Optional(LifecyclePhaseSchema),
  group_id: Type.Optional(Id),
  model: Type.Optional(Type.String({ minLength: 1, maxLength: 200, description: '型号（完全匹配）' })),
};

export const ProductFilterOnly = Type.Object(ProductFilterQuery);
export type ProductFilter = Static<typeof ProductFilterOnly>;

export const GranularitySchema = Type.Enum(GRANULARITIES, { description: 'day 按日, week 按周（周一开始）, month 按月；默认 day' });

export const StatsRangeQuery = Type.Object({ ...DateRangeQuery, ...ProductFilterQuery });
export type StatsRangeQuery = Static<typeof StatsRangeQuery>;

export const RankingLimit = (max: number, byDefault: number) => CappedLimit(max, `条数，默认 ${byDefault}，超过 ${max} 按 ${max}`);

/**
 * THE product filter of a statistics query: the data scope (productScopeCondition: nothing for an
 * empty scope) and the caller's narrowing filters. Task and task-log queries join the product first
 * and use the same condition.
 */
export function productFilterOf(scope: DataScope, filter: ProductFilter = {}): SQL | undefined {
  const model = filter.model?.trim();
  return and(
    productScopeCondition(scope),
    filter.lifecycle_phase ? eq(products.lifecyclePhase, filter.lifecycle_phase) : undefined,
    filter.group_id ? eq(products.groupId, filter.group_id) : undefined,
    model ? eq(products.model, model) : undefined,
  );
}

/** Range bounds as they go out: the days the statistics cover. */
export const RangeView = {
  start_date: Type.String({ description: '统计开始日期（北京时间）' }),
  end_date: Type.String({ description: '统计结束日期（北京时间，含当天）' }),
};

export const rangeView = (range: DateRange) => ({ start_date: range.startDate, end_date: range.endDate });
