import { getTableColumns, type Table } from 'drizzle-orm';
import pg from 'pg';
import type { Queryable } from './database.js';
import { keepText, TEXT_PARSERS, TEXT_TYPE_IDS } from './text-types.js';

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

const PG_TYPES = {
  getTypeParser: (typeId: number, format?: 'text' | 'binary') =>
    TEXT_TYPE_IDS.has(typeId) ? keepText : pg.types.getTypeParser(typeId, format as 'text'),
};

interface PgLike {
  query(config: { name?: string; text: string; values?: unknown[]; types: typeof PG_TYPES }): Promise<PgResult | PgResult[]>;
}
interface PgResult {
  rows: unknown[];
  command: string;
}
interface PgliteLike {
  exec(text: string, options: { parsers: typeof TEXT_PARSERS }): Promise<Array<{ rows: unknown[] }>>;
}

/** The driver client behind a drizzle database or transaction: a pg Pool / PoolClient or a PGlite (transaction). */
export function driverClientOf(q: Queryable): unknown {
  return (q as unknown as { session: { client: unknown } }).session.client;
}

/** Runs the statement on q (inside its transaction when q is one). */
export async function runStatement<Row>(q: Queryable, st: Statement<Row>, values: readonly unknown[]): Promise<Row[]> {
  const [rows] = await runStatements(q, [[st, values]]);
  return rows as Row[];
}

/** A statement with its values, one item of a batch. */
export type BatchItem = readonly [Statement<unknown>, readonly unknown[]];
type Batch = readonly BatchItem[];

/**
 * Runs statements one after the other and answers their rows in order, in one round trip (one call into
 * the engine on PGlite) inside a transaction; on a PostgreSQL pool (no transaction), one round trip each.
 */
export async function runStatements(q: Queryable, batch: Batch): Promise<unknown[][]> {
  const client = driverClientOf(q);
  if (client instanceof pg.Pool) return runOnPool(client as unknown as PgLike, batch);
  const session = sqlSessionOf(client);
  const results = await session.run(await session.batchSql(batch));
  return results.map((result) => result.rows);
}

/**
 * Runs the batch and COMMITs the transaction of tx in the same round trip, so the rows the batch locks
 * are released without waiting for the service again. The transaction ends here: nothing may run on tx
 * after it (the transaction wrapper then skips its own COMMIT). PGlite commits when the transaction's
 * function returns, as always (one engine call either way).
 */
export async function runStatementsAndCommit(q: Queryable, batch: Batch): Promise<unknown[][]> {
  const client = driverClientOf(q);
  const ending = openTransactions.get(client as object);
  if (!ending) return runStatements(q, batch);
  const session = sqlSessionOf(client);
  const results = await session.run(`${await session.batchSql(batch)};\ncommit`);
  ending.committed = true;
  assertCommitted(results.pop());
  return results.map((result) => result.rows);
}

/** COMMIT of a transaction an earlier statement aborted answers ROLLBACK, not an error: such a call is never done. */
export function assertCommitted(commit: { command: string } | undefined): void {
  if (commit?.command === 'ROLLBACK') throw new Error('transaction was rolled back by an earlier error');
}

/** PostgreSQL transactions opened by the platform, by their connection: whether a batch committed one already. */
const openTransactions = new WeakMap<object, { committed: boolean }>();

/** Marks a transaction open on this pg connection (database.ts); answers whether a batch committed it meanwhile. */
export function trackTransaction(client: object): { committedByBatch(): boolean; close(): void } {
  const state = { committed: false };
  openTransactions.set(client, state);
  return { committedByBatch: () => state.committed, close: () => openTransactions.delete(client) };
}

async function runOnPool(pool: PgLike, batch: Batch): Promise<unknown[][]> {
  const answers: unknown[][] = [];
  for (const [st, values] of batch) {
    const result = (await pool.query({ name: st.name, text: st.text, values: [...values], types: PG_TYPES })) as PgResult;
    answers.push(result.rows);
  }
  return answers;
}

/**
 * One database session (a pg connection or a PGlite instance) seen as simple-protocol SQL. Planning and
 * the protocol's extra messages cost more than the statements of a hot path: a statement is PREPAREd
 * once per session (by SQL, in a round trip of its own: PREPARE outlives a rolled-back transaction) and
 * then EXECUTEd in one simple query with the rest of its batch, the values written in as quoted
 * literals (every statement casts its parameters). SQL-level names carry the prefix `sql_`: they share
 * PostgreSQL's namespace with the driver's protocol-level prepared statements.
 *
 * The EXECUTEs of a batch run on the statement's generic plan (plan_cache_mode, local to the batch's
 * statements): PostgreSQL's own choice keeps planning anew every time a statement takes an array
 * (`id = any($1)` is estimated at ten elements, so the generic plan never looks cheaper), which was a
 * third of a submission's database CPU. The statements here are key lookups, whose plan does not
 * depend on the values; a statement whose best plan does (a LIKE pattern, a skewed range) does not
 * belong here.
 */
export interface SqlSession {
  batchSql(batch: Batch): Promise<string>;
  run(text: string): Promise<PgResult[]>;
}

export function sqlSessionOf(client: unknown): SqlSession {
  const run = client instanceof pg.Client
    ? async (text: string) => {
      const result = await (client as unknown as PgLike).query({ text, types: PG_TYPES });
      return Array.isArray(result) ? result : [result];
    }
    : async (text: string) => (await (client as PgliteLike).exec(text, { parsers: TEXT_PARSERS })) as PgResult[];
  const answersOf = (results: PgResult[]) => results.filter((result) => result.command !== 'SET');
  // a pg connection is its own session; a PGlite client prepares only once sharePreparedStatements allowed it
  const prepared = client instanceof pg.Client ? preparedNamesOf(client) : preparedNames.get(client as object);
  return {
    run: async (text) => answersOf(await run(text)),
    batchSql: async (batch) => {
      const texts: string[] = [];
      let executes = false;
      for (const [st, values] of batch) {
        if (!prepared || !PREPARABLE.test(st.text)) {
          texts.push(inlineParameters(st.text, values));
          continue;
        }
        const name = `sql_${st.name}`;
        if (!prepared.has(name)) {
          await run(`prepare ${name} as ${st.text}`);
          prepared.add(name);
        }
        texts.push(`execute ${name}${values.length ? `(${values.map(sqlLiteral).join(', ')})` : ''}`);
        executes = true;
      }
      return executes ? [GENERIC_PLANS, ...texts, DEFAULT_PLANS].join(';\n') : texts.join(';\n');
    },
  };
}

function preparedNamesOf(session: object): Set<string> {
  let names = preparedNames.get(session);
  if (!names) preparedNames.set(session, (names = new Set()));
  return names;
}

/** Around a batch's EXECUTEs; their results (command SET) are left out of the answers. */
const GENERIC_PLANS = 'set local plan_cache_mode = force_generic_plan';
const DEFAULT_PLANS = 'set local plan_cache_mode to default';

/** What PREPARE accepts; utility statements (savepoint, …) run as they are. */
const PREPARABLE = /^\s*(select|insert|update|delete|with|values)\b/i;

/** The statements PREPAREd in a PGlite session, by the clients that reach it (the instance, its transactions). */
const preparedNames = new WeakMap<object, Set<string>>();

/** Lets runStatement prepare statements on this PGlite client; a transaction client shares its session's set. */
export function sharePreparedStatements(client: object, session: object = client): void {
  preparedNames.set(client, preparedNamesOf(session));
}

/** The statement text with $1, $2, … replaced by quoted literals of the values. */
export function inlineParameters(text: string, values: readonly unknown[]): string {
  return text.replace(/\$(\d+)/g, (_, index: string) => {
    const position = Number(index) - 1;
    if (position >= values.length) throw new Error(`statement parameter $${index} has no value`);
    return sqlLiteral(values[position]);
  });
}

/** A value as an SQL literal (standard_conforming_strings: only the quote is doubled). */
export function sqlLiteral(value: unknown): string {
  if (value === null || value === undefined) return 'NULL';
  if (typeof value === 'boolean') return value ? 'true' : 'false';
  if (Array.isArray(value)) return quoted(`{${value.map(arrayElement).join(',')}}`);
  if (value instanceof Date) return quoted(value.toISOString());
  if (typeof value === 'number' || typeof value === 'bigint') {
    if (typeof value === 'number' && !Number.isFinite(value)) throw new Error('not a finite number');
    return quoted(String(value));
  }
  if (typeof value === 'object') return quoted(JSON.stringify(value));
  return quoted(String(value));
}

const quoted = (text: string) => `'${text.replaceAll("'", "''")}'`;
const arrayElement = (element: unknown) =>
  element === null || element === undefined ? 'NULL' : `"${String(element).replace(/[\\"]/g, (c) => `\\${c}`)}"`;

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
