import { types as pgliteTypes } from '@electric-sql/pglite';
import { getTableColumns, type Table } from 'drizzle-orm';
import pg from 'pg';
import type { Queryable } from './database.js';

/**
 * A hand-written statement of a hot path, prepared once per connection by name and reused by every
 * transaction after it (drizzle prepares only per query builder and per transaction). Timestamps,
 * dates and intervals come back as the database's text, as they do through drizzle, so a row read
 * here maps like one read there.
 */
export interface Statement<Row> {
  readonly name: string;
  readonly text: string;
  /** Only for type inference. */
  readonly row?: Row;
}

export function statement<Row>(name: string, text: string): Statement<Row> {
  return { name, text };
}

const TEXT_TYPE_IDS = new Set<number>([
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
const keepText = (value: string) => value;
const PG_TYPES = {
  getTypeParser: (typeId: number, format?: 'text' | 'binary') =>
    TEXT_TYPE_IDS.has(typeId) ? keepText : pg.types.getTypeParser(typeId, format as 'text'),
};
const PGLITE_PARSERS = {
  [pgliteTypes.TIMESTAMP]: keepText,
  [pgliteTypes.TIMESTAMPTZ]: keepText,
  [pgliteTypes.INTERVAL]: keepText,
  [pgliteTypes.DATE]: keepText,
};

interface PgLike {
  query(config: { name: string; text: string; values: unknown[]; types: typeof PG_TYPES }): Promise<{ rows: unknown[] }>;
}
interface PgliteLike {
  query(text: string, values: unknown[], options: { parsers: typeof PGLITE_PARSERS }): Promise<{ rows: unknown[] }>;
}

/** The driver client behind a drizzle database or transaction: a pg Pool / PoolClient or a PGlite (transaction). */
export function driverClientOf(q: Queryable): unknown {
  return (q as unknown as { session: { client: unknown } }).session.client;
}

/** A pool's clients are pg.Client instances too. */
export function isPgClient(client: unknown): client is PgLike {
  return client instanceof pg.Pool || client instanceof pg.Client;
}

/** Runs the statement on q (inside its transaction when q is one). */
export async function runStatement<Row>(q: Queryable, st: Statement<Row>, values: unknown[]): Promise<Row[]> {
  const client = driverClientOf(q);
  if (isPgClient(client)) {
    const result = await client.query({ name: st.name, text: st.text, values, types: PG_TYPES });
    return result.rows as Row[];
  }
  const result = await (client as PgliteLike).query(st.text, values, { parsers: PGLITE_PARSERS });
  return result.rows as Row[];
}

/**
 * The columns of a drizzle table for a hand-written statement: `alias."column" as "<prefix><key>"` for
 * each, and the mapping of such a result row back to the table's typed row (the columns' own driver
 * mappings: timestamps become Dates exactly as through drizzle).
 */
export function tableColumns<T extends Table>(table: T, alias: string, prefix = '') {
  const columns = Object.entries(getTableColumns(table));
  const select = columns.map(([key, column]) => `${alias}."${column.name}" as "${prefix}${key}"`).join(', ');
  const map = (raw: Record<string, unknown>): T['$inferSelect'] => {
    const row: Record<string, unknown> = {};
    for (const [key, column] of columns) {
      const value = raw[prefix + key];
      row[key] = value === null || value === undefined ? null : column.mapFromDriverValue(value);
    }
    return row as T['$inferSelect'];
  };
  return { select, map };
}
