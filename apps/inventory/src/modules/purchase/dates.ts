import { validationFailed } from '@wms/platform';

/** A YYYY-MM-DD that names a real calendar day (2024-02-30 is 400 naming the field, never a database error). */
export function checkCalendarDate(value: string | null | undefined, field: string): void {
  if (value === null || value === undefined) return;
  const at = new Date(`${value}T00:00:00Z`);
  if (Number.isNaN(at.getTime()) || at.toISOString().slice(0, 10) !== value) {
    throw validationFailed(`${field} 不是有效的日期: ${value}`, { field });
  }
}
