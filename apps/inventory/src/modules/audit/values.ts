import { beijingIso } from '@wms/platform';
/** A stored instant (ISO 8601 with an offset, as the capture wrote a timestamptz) read in Beijing time, to the second. */
const STORED_INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/;

/** A value shown to a reader: an instant in Beijing time (spec 2.12 "Beijing time always"), else undefined. */
export function beijingTimeText(value: unknown): string | undefined {
  if (typeof value !== 'string' || !STORED_INSTANT.test(value)) return undefined;
  const at = new Date(value);
  return Number.isNaN(at.getTime()) ? undefined : beijingIso(at).slice(0, 19).replace('T', ' ');
}

const DECIMAL_TEXT = /^-?\d+\.\d+$/;

/**
 * A quantity as shown (spec 2.1): a meaningless trailing .0 is dropped ('5.000' → '5', '2.50' → '2.5');
 * numbers print as JSON numbers do. Text that is not a decimal is left alone.
 */
export function displayQuantity(value: unknown): string {
  if (typeof value === 'number') return String(value);
  if (typeof value === 'string' && DECIMAL_TEXT.test(value.trim())) return value.trim().replace(/0+$/, '').replace(/\.$/, '');
  return value === null || value === undefined ? '' : String(value);
}

/** The request URL's tail (spec 2.12 rule 3): without the /api/vN prefix and without the query. */
export function sourceOf(requestUrl: string | null): string | null {
  if (!requestUrl) return null;
  const path = requestUrl.split(/[?#]/, 1)[0]!.replace(/^\/api\/v\d+(?=\/|$)/, '');
  return path || '/';
}

/** A unit worth printing: the material's unit unless it is purely numeric (an import artefact). */
export function printableUnit(unit: string | null | undefined): string {
  const text = unit?.trim() ?? '';
  return /^[\d.\s]+$/.test(text) ? '' : text;
}
