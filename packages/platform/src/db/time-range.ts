import { and, gte, lte, sql, type SQL } from 'drizzle-orm';
import type { AnyPgColumn } from 'drizzle-orm/pg-core';
import { Type } from 'typebox';
import { beijingDate, beijingMidnight } from '../beijing-time.js';
import { validationFailed } from '../errors.js';

/**
 * start_date / end_date of an inventory list (spec 4.1, contract §8). A bare date (10 characters) is a Beijing
 * calendar day: the start bound is its 00:00:00, the end bound includes the whole day (so it becomes
 * "before the next day's 00:00"). A datetime is used as it is; one without an offset is Beijing time.
 * Each bound works alone.
 */
export interface TimeRange {
  /** inclusive */
  from?: Date;
  /** exclusive when the end was a bare date, inclusive otherwise */
  to?: { at: Date; inclusive: boolean };
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DATETIME = /^(\d{4}-\d{2}-\d{2})[T ](\d{2}:\d{2}(?::\d{2}(?:\.\d{1,6})?)?)(Z|[+-]\d{2}:?\d{2})?$/;

/** 00:00 Beijing time of a sent calendar date, refused (400 naming the field) unless it is a real date. */
function checkedBeijingMidnight(date: string, field: string): Date {
  const match = DATE.exec(date);
  const at = beijingMidnight(date);
  // Date rolls 2024-02-30 over to March; a real calendar date survives the round trip. PostgreSQL has no year 0000.
  if (!match || match[1] === '0000' || Number.isNaN(at.getTime()) || beijingDate(at) !== date) {
    throw validationFailed(`${field} 不是有效的日期: ${date}`, { field });
  }
  return at;
}

function parseDatetime(text: string, field: string): Date {
  const match = DATETIME.exec(text);
  if (!match) throw validationFailed(`${field} 应为 YYYY-MM-DD 或日期时间 (如 2024-05-01T08:30:00+08:00)`, { field });
  const [, date, time, offset] = match;
  checkedBeijingMidnight(date!, field);
  const at = new Date(`${date}T${time}${offset ?? '+08:00'}`);
  if (Number.isNaN(at.getTime())) throw validationFailed(`${field} 不是有效的日期时间: ${text}`, { field });
  return at;
}

export function parseTimeRange(start: string | undefined, end: string | undefined): TimeRange {
  const range: TimeRange = {};
  const startText = start?.trim();
  const endText = end?.trim();
  if (startText) {
    range.from = startText.length === 10 ? checkedBeijingMidnight(startText, 'start_date') : parseDatetime(startText, 'start_date');
  }
  if (endText) {
    range.to =
      endText.length === 10
        ? { at: new Date(checkedBeijingMidnight(endText, 'end_date').getTime() + 24 * 3600e3), inclusive: false }
        : { at: parseDatetime(endText, 'end_date'), inclusive: true };
  }
  return range;
}

/** A list's start_date / end_date as the WHERE on its timestamp column or expression (undefined when neither is given). */
export function timeRangeCondition(column: AnyPgColumn | SQL, start: string | undefined, end: string | undefined): SQL | undefined {
  const range = parseTimeRange(start, end);
  const instant = (at: Date) => sql`${at.toISOString()}::timestamptz`;
  return and(
    range.from ? sql`${column} >= ${instant(range.from)}` : undefined,
    range.to ? (range.to.inclusive ? sql`${column} <= ${instant(range.to.at)}` : sql`${column} < ${instant(range.to.at)}`) : undefined,
  );
}

/** The start_date / end_date query fields of a list, described for the time they filter on. */
export function timeRangeQuery(what: string) {
  return {
    start_date: Type.Optional(Type.String({ maxLength: 40, description: `${what}起: YYYY-MM-DD（北京时间当日 00:00:00 起）或日期时间` })),
    end_date: Type.Optional(Type.String({ maxLength: 40, description: `${what}止: YYYY-MM-DD（含北京时间当日整天）或日期时间` })),
  };
}

/**
 * start_date / end_date on a calendar-day column (a stock row's in_date, a purchase's purchase_date): a closed
 * interval of Beijing days, parsed like every list's bounds (400 naming the field); a datetime bound counts by
 * its Beijing date, a bare end date is its whole day.
 */
export function dayRangeCondition(column: AnyPgColumn, start: string | undefined, end: string | undefined): SQL | undefined {
  const range = parseTimeRange(start, end);
  const lastInstant = range.to && (range.to.inclusive ? range.to.at : new Date(range.to.at.getTime() - 1));
  return and(
    range.from ? gte(column, beijingDate(range.from)) : undefined,
    lastInstant ? lte(column, beijingDate(lastInstant)) : undefined,
  );
}

/** The start_date / end_date query fields of a list filtered on a calendar-day column (dayRangeCondition). */
export function dayRangeQuery(what: string) {
  return {
    start_date: Type.Optional(Type.String({ maxLength: 40, description: `${what} 起（含）: YYYY-MM-DD；日期时间按其北京日期` })),
    end_date: Type.Optional(Type.String({ maxLength: 40, description: `${what} 止（含当日）: YYYY-MM-DD；日期时间按其北京日期` })),
  };
}
