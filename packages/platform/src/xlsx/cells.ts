import type { Style } from 'exceljs';
import { Decimal } from 'decimal.js';

/**
 * What a column holds. Without a type the value decides: numbers (and Decimals) are numbers, Date
 * objects and ISO instants with a zone ('2026-11-23T18:50:41.521Z') are datetimes, the rest is text.
 */
export type CellType = 'text' | 'number' | 'date' | 'datetime';

export interface Cell {
  value: string | number | Date | null;
  style?: Partial<Style>;
  /** Characters the cell needs on screen (CJK count double); sizes the column. */
  width: number;
}

const BEIJING_OFFSET_MS = 8 * 3600_000; // Asia/Shanghai has no daylight saving time
const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
const DATE_FORMAT = 'yyyy-mm-dd';

/*
 * Text cells are string cells (never evaluated by a spreadsheet program, so '=1+1' shows as typed)
 * formatted as Text ('@'), so editing the cell and pressing Enter keeps it text instead of running it.
 * One shared object per style: the streaming writer remembers style objects it has seen (WeakMap),
 * so 100,000-row exports do not hash a fresh style per cell.
 */
const TEXT_STYLE: Partial<Style> = { numFmt: '@' };
const DATETIME_STYLE: Partial<Style> = { numFmt: DATETIME_FORMAT };
const DATE_STYLE: Partial<Style> = { numFmt: DATE_FORMAT };
export const HEADER_STYLE: Partial<Style> = { font: { bold: true }, numFmt: '@' };

const ISO_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})$/;
const CALENDAR_DATE = /^(\d{4})-(\d{2})-(\d{2})$/;
const DECIMAL_TEXT = /^-?\d+(\.\d+)?$/;
const WIDE_CHARACTER = /[\u1100-\u115f\u2e80-\ua4cf\uac00-\ud7a3\uf900-\ufaff\ufe30-\ufe4f\uff00-\uff60\uffe0-\uffe6\u{20000}-\u{3fffd}]/u;

/**
 * A spreadsheet date has no zone: the cell holds the Beijing wall-clock time (whole seconds, as the
 * format shows), encoded the way exceljs encodes dates (their UTC fields).
 */
export function beijingWallClock(instant: Date): Date {
  return new Date(Math.floor(instant.getTime() / 1000) * 1000 + BEIJING_OFFSET_MS);
}

function instantOf(value: unknown): Date | null {
  const instant = value instanceof Date ? value : typeof value === 'string' && ISO_INSTANT.test(value) ? new Date(value) : null;
  return instant && !Number.isNaN(instant.getTime()) ? instant : null;
}

/** 'YYYY-MM-DD' (a real calendar day) or the Beijing day of an instant, as midnight of that day. */
function calendarDateOf(value: unknown): Date | null {
  const match = typeof value === 'string' ? CALENDAR_DATE.exec(value) : null;
  if (match) {
    const day = new Date(Date.UTC(Number(match[1]), Number(match[2]) - 1, Number(match[3])));
    return day.toISOString().slice(0, 10) === value ? day : null;
  }
  const instant = instantOf(value);
  if (!instant) return null;
  const wall = beijingWallClock(instant);
  return new Date(Date.UTC(wall.getUTCFullYear(), wall.getUTCMonth(), wall.getUTCDate()));
}

function numberOf(value: unknown): number | null {
  if (typeof value === 'number') return Number.isFinite(value) ? value : null;
  if (Decimal.isDecimal(value)) return (value as Decimal).toNumber();
  if (typeof value === 'string' && DECIMAL_TEXT.test(value)) return Number(value);
  return null;
}

function textOf(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'boolean') return value ? '是' : '否';
  if (value instanceof Date) return beijingWallClock(value).toISOString().slice(0, 19).replace('T', ' ');
  if (typeof value === 'object') return JSON.stringify(value);
  return String(value);
}

/** Screen width of text: East Asian wide characters take two columns; the longest line counts. */
export function displayWidth(text: string): number {
  let widest = 0;
  for (const line of text.split('\n')) {
    let width = 0;
    for (const character of line) width += WIDE_CHARACTER.test(character) ? 2 : 1;
    widest = Math.max(widest, width);
  }
  return widest;
}

const textCell = (value: unknown): Cell => {
  const text = textOf(value);
  return { value: text, style: TEXT_STYLE, width: displayWidth(text) };
};
const numberCell = (value: number): Cell => ({ value, width: String(value).length });
const datetimeCell = (instant: Date): Cell => ({ value: beijingWallClock(instant), style: DATETIME_STYLE, width: DATETIME_FORMAT.length });
const dateCell = (day: Date): Cell => ({ value: day, style: DATE_STYLE, width: DATE_FORMAT.length });

/**
 * The cell for a value in a column of the given type. A value that does not fit its type (a '—'
 * placeholder in a number column) is written as text rather than dropped.
 */
export function toCell(value: unknown, type?: CellType): Cell {
  if (value === null || value === undefined) return { value: null, width: 0 };
  switch (type) {
    case 'text':
      return textCell(value);
    case 'number': {
      const number = numberOf(value);
      return number === null ? textCell(value) : numberCell(number);
    }
    case 'datetime': {
      const instant = instantOf(value);
      return instant ? datetimeCell(instant) : textCell(value);
    }
    case 'date': {
      const day = calendarDateOf(value);
      return day ? dateCell(day) : textCell(value);
    }
    default: {
      if (typeof value === 'number' || Decimal.isDecimal(value)) {
        const number = numberOf(value);
        return number === null ? { value: null, width: 0 } : numberCell(number); // NaN and Infinity stay empty
      }
      const instant = instantOf(value);
      return instant ? datetimeCell(instant) : textCell(value);
    }
  }
}
