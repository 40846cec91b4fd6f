/** Summaries of measured values, the same everywhere in the bench. */

/** Nearest-rank percentile (p in percent) of ascending values; 0 when there are none. */
export function percentile(sorted: ArrayLike<number>, p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export interface Spread {
  median: number;
  min: number;
  max: number;
}

/** n rounded to `digits` decimals, as every figure of the report is kept. */
export const round = (n: number, digits: number) => Math.round(n * 10 ** digits) / 10 ** digits;

export function spreadOf(values: number[]): Spread {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  const median = sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
  return { median: round(median, 3), min: round(sorted[0]!, 3), max: round(sorted[sorted.length - 1]!, 3) };
}
