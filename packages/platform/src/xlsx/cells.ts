import { BEIJING_OFFSET_MS } from '../beijing-time.js';
import { Decimal } from 'decimal.js';

/**
 * What a column holds. Without a type the value decides: numbers (and Decimals) are numbers, Date
 * objects and ISO instants with a zone ('2026-11-23T18:50:41.521Z') are datetimes, the rest is text.
 */
export type CellType = 'text' | 'number' | 'date' | 'datetime';

/** How a cell is written: its XML form and its style (sheet-xml.ts). */
export type CellKind = 'empty' | 'text' | 'number' | 'datetime' | 'date';

export type Cell =
  | { kind: 'empty' }
  | { kind: 'text'; value: string }
  | { kind: 'number'; value: number }
  /** The Beijing wall-clock time (datetime) or day (date), encoded in the Date's UTC fields. */
  | { kind: 'datetime' | 'date'; value: Date };

export const DATETIME_FORMAT = 'yyyy-mm-dd hh:mm:ss';
export const DATE_FORMAT = 'yyyy-mm-dd';

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
  if (Decimal.isDecimal(value)) {
    const number = (value as Decimal).toNumber();
    return Number.isFinite(number) ? number : null;
  }
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

const EMPTY: Cell = { kind: 'empty' };
/** Text a spreadsheet would take for a formula when typed or pasted (contract §7: =, +, -, @). */
const FORMULA_START = /^[=+\-@]/;

/**
 * Contract §7: text that begins like a formula is neutralised with a leading apostrophe (the OWASP rule for
 * formula injection), so no copy, paste, re-typing or CSV save of the cell can turn it into a formula; the
 * imports drop that apostrophe again, so an exported file reads back as it was stored.
 */
export const neutralisedText = (text: string): string => (FORMULA_START.test(text) ? `'${text}` : text);

/** The stored text of a cell an export neutralised (neutralisedText undone); other text as it is. */
export const storedText = (text: string): string => (text.startsWith("'") && FORMULA_START.test(text.slice(1)) ? text.slice(1) : text);

const textCell = (value: unknown): Cell => ({ kind: 'text', value: neutralisedText(textOf(value)) });
const numberCell = (value: number): Cell => ({ kind: 'number', value });
const datetimeCell = (instant: Date): Cell => ({ kind: 'datetime', value: beijingWallClock(instant) });
const dateCell = (day: Date): Cell => ({ kind: 'date', value: day });

/** Characters the cell needs on screen (CJK count double); sizes the column from the first rows only. */
export function cellWidth(cell: Cell): number {
  switch (cell.kind) {
    case 'empty':
      return 0;
    case 'text':
      return displayWidth(cell.value);
    case 'number':
      return String(cell.value).length;
    case 'datetime':
      return DATETIME_FORMAT.length;
    case 'date':
      return DATE_FORMAT.length;
  }
}

/**
 * The cell for a value in a column of the given type. A value that does not fit its type (a '—'
 * placeholder in a number column) is written as text rather than dropped.
 */
export function toCell(value: unknown, type?: CellType): Cell {
  if (value === null || value === undefined) return EMPTY;
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
        return number === null ? EMPTY : numberCell(number); // NaN and Infinity stay empty
      }
      const instant = instantOf(value);
      return instant ? datetimeCell(instant) : textCell(value);
    }
  }
}
