import pg from 'pg';

/**
 * Types whose values come back as the database's text, as drizzle reads them: timestamps, dates and
 * intervals (and arrays of them, and numeric[]), so a row read by a hand-written statement maps like
 * one read through drizzle.
 */
export const TEXT_TYPE_IDS: ReadonlySet<number> = new Set<number>([
  pg.types.builtins.TIMESTAMPTZ,
  pg.types.builtins.TIMESTAMP,
  pg.types.builtins.DATE,
  pg.types.builtins.INTERVAL,
  1115, // timestamp[]
  1182, // date[]
  1185, // timestamptz[]
  1187, // interval[]
  1231, // numeric[]
]);

export const keepText = (value: string): string => value;

/** The same as PGlite's per-call parsers (what drizzle passes on every query). */
export const TEXT_PARSERS: Readonly<Record<number, typeof keepText>> = Object.fromEntries([...TEXT_TYPE_IDS].map((typeId) => [typeId, keepText]));

type Parsers = Record<number, (value: string, typeId: number) => unknown>;
interface QueryOptions {
  parsers?: Parsers;
}
type Call = (...args: unknown[]) => Promise<unknown>;

/**
 * PGlite merges per-call parsers into a copy of its whole parser table (≈ 350 types) on every call:
 * ≈ 80 µs a query, a tenth of a submission's CPU. So the instance reads the text types as text itself
 * (after PGlite.create, which fills in the array types), and the per-call parsers drizzle passes,
 * which only restate that, are left out by skipRestatedParsers.
 */
export function readTextTypesAsText(instance: object): void {
  const parsers = (instance as { parsers: Parsers }).parsers;
  for (const typeId of TEXT_TYPE_IDS) parsers[typeId] = keepText;
}

const restatesTextTypes = (parsers: Parsers) => Object.keys(parsers).every((typeId) => TEXT_TYPE_IDS.has(Number(typeId)));

function withoutRestatedParsers(options: unknown): unknown {
  const parsers = (options as QueryOptions | undefined)?.parsers;
  if (!parsers || !restatesTextTypes(parsers)) return options;
  const { parsers: _, ...rest } = options as QueryOptions;
  return rest;
}

/** Makes query and exec of a PGlite instance or transaction drop the parsers readTextTypesAsText made redundant. */
export function skipRestatedParsers(target: object): void {
  const methods = target as { query: Call; exec: Call };
  const query = methods.query.bind(target);
  const exec = methods.exec.bind(target);
  methods.query = (text, params, options) => query(text, params, withoutRestatedParsers(options));
  methods.exec = (text, options) => exec(text, withoutRestatedParsers(options));
}
