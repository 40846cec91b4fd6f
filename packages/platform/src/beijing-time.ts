/**
 * The warehouse's clock: both services show times and count calendar days in Beijing time (contract §2,
 * spec 2.12). Asia/Shanghai has had no daylight saving time since 1991, so a fixed offset is exact.
 */
export const BEIJING_OFFSET_MS = 8 * 3600_000;

/** An instant as ISO 8601 in Beijing time, e.g. 2025-03-01T08:30:00.000+08:00. */
export function beijingIso(at: Date): string {
  return new Date(at.getTime() + BEIJING_OFFSET_MS).toISOString().replace('Z', '+08:00');
}

/** The Beijing calendar day of an instant, 'YYYY-MM-DD'. */
export function beijingDate(at: Date): string {
  return new Date(at.getTime() + BEIJING_OFFSET_MS).toISOString().slice(0, 10);
}

/** 00:00 Beijing time of a calendar day ('YYYY-MM-DD'), as an instant. */
export function beijingMidnight(date: string): Date {
  return new Date(`${date}T00:00:00+08:00`);
}
