import { mkdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { PGlite, type Extensions } from '@electric-sql/pglite';
import { cube } from '@electric-sql/pglite/contrib/cube';
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite, PgliteSession, PgliteTransaction } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg, NodePgSession, NodePgTransaction } from 'drizzle-orm/node-postgres';
import type { PgDialect } from 'drizzle-orm/pg-core';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { acquireDataDirLock } from './data-dir-lock.js';
import { Mutex } from './mutex.js';
import { readTextTypesAsText, skipRestatedParsers } from './text-types.js';
import {
  assertCommitted,
  sharePreparedStatements,
  sqlSessionOf,
  statement,
  trackTransaction,
  type BatchItem,
  type SqlSession,
  type Statement,
} from './statement.js';

/* eslint-disable @typescript-eslint/no-explicit-any */
export type Db = PgDatabase<PgQueryResultHKT, any>;
export type Tx = PgTransaction<PgQueryResultHKT, any, any>;
/** Anything a query can run on: the database outside a transaction, or a transaction. */
export type Queryable = Db | Tx;
/* eslint-enable @typescript-eslint/no-explicit-any */

export type DatabaseKind = 'pglite' | 'postgres';

/** Who is acting, captured by the audit triggers through transaction-local settings. */
export interface AuditContext {
  actor: string;
  company?: string | null;
  requestUrl?: string | null;
  /** Read in the same round trip that opens the transaction (see ActorVersionProbe). */
  actorProbe?: ActorVersionProbe;
}

/**
 * Thrown inside a transaction that lost a race it can win by starting over (a row it meant to take was
 * taken meanwhile): the transaction is rolled back, which frees its locks, and run again from the start.
 */
export class RetryTransaction extends Error {
  constructor(reason: string) {
    super(reason);
    this.name = 'RetryTransaction';
  }
}

/**
 * The caller's account version, read in the round trip that opens a transaction, so that a cached
 * actor is confirmed without a query of its own. confirm throws to abort before anything is written.
 */
export interface ActorVersionProbe {
  /** SQL with $1 for the user id: one row with the column `version`, none when the account is gone or inactive. */
  query: string;
  userId: number;
  confirm(version: string | null): void;
}

export interface Database {
  readonly kind: DatabaseKind;
  readonly db: Db;
  /**
   * Runs fn in one transaction with the audit context set; PGlite runs them strictly one at a time.
   * `opening`, a statement that needs nothing the transaction reads, runs in the round trip that opens
   * it, and fn gets its rows.
   */
  transaction<T, R = never>(audit: AuditContext, fn: TransactionBody<T, R>, opening?: OpeningStatement<R>): Promise<T>;
  /** Runs reads; in PGlite mode they wait for running transactions so they never see half of one. */
  read<T>(fn: (db: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export type TransactionBody<T, R = never> = (tx: Tx, opened: R[]) => Promise<T>;
/** A statement with its values, run in the round trip that opens a transaction. */
export type OpeningStatement<R> = readonly [Statement<R>, readonly unknown[]];

export interface OpenDatabaseOptions {
  /**
   * postgres://…, memory://, or a folder path for an on-disk PGlite. `memory://?from=<file>` starts the
   * in-memory PGlite from a data-directory archive (PGlite's dumpDataDir, e.g. writePgliteTemplate() of the
   * testing helpers) instead of an empty cluster; the migrations then apply only what it lacks.
   */
  url: string;
  migrationsFolder: string;
  /** Connections of the PostgreSQL pool; defaultPoolSize() when unset. */
  poolSize?: number;
  /**
   * PGlite extensions the migrations need (e.g. `{ cube }` from @electric-sql/pglite/contrib/cube). A
   * PostgreSQL server has its contrib extensions installed; PGlite loads only those named here.
   */
  pgliteExtensions?: Extensions;
}

/** PGlite's build of the contrib `cube` extension, for a service whose migrations create it. */
export const PGLITE_CUBE: Extensions = { cube };

/** PGlite's build of the contrib `pg_trgm` extension (trigram indexes for substring search). */
export const PGLITE_PG_TRGM: Extensions = { pg_trgm };

const SETTINGS = `select set_config('app.actor', $1::text, true), set_config('app.company', $2::text, true),
       set_config('app.request_url', $3::text, true)`;
const SETTINGS_ONLY = statement<{ actor_version: null }>('audit_settings', `${SETTINGS}, null::text as actor_version`);
/** The settings with the actor probe, one prepared statement per version SQL (a service has one). */
const settingsWithProbe = new Map<string, Statement<{ actor_version: string | null }>>();

/** The audit settings and the actor probe as one prepared SELECT: its plan is made once per session. */
function auditSettings(audit: AuditContext): BatchItem {
  const values = [audit.actor, audit.company ?? '', audit.requestUrl ?? ''];
  const probe = audit.actorProbe;
  if (!probe) return [SETTINGS_ONLY, values];
  let st = settingsWithProbe.get(probe.query);
  if (!st) {
    const version = `(select version from (${probe.query.replaceAll('$1', '$4::int')}) as actor_probe)`;
    settingsWithProbe.set(probe.query, (st = statement(`audit_settings_probe_${settingsWithProbe.size + 1}`, `${SETTINGS}, ${version} as actor_version`)));
  }
  return [st, [...values, probe.userId]];
}

/** What opens a transaction after BEGIN: the audit settings with the actor probe, then the opening statement. */
function openingSql(session: SqlSession, audit: AuditContext, opening: OpeningStatement<unknown> | undefined): Promise<string> {
  return session.batchSql([auditSettings(audit), ...(opening ? [opening as BatchItem] : [])]);
}

/** Confirms the actor from the settings' answer and hands over the opening statement's rows. */
function opened<R>(audit: AuditContext, results: Array<{ rows: unknown[] }>): R[] {
  audit.actorProbe?.confirm((results[0]?.rows[0] as { actor_version: string | null } | undefined)?.actor_version ?? null);
  return (results[1]?.rows ?? []) as R[];
}

/**
 * PGlite: the audit settings, the actor probe and the opening statement in one call right after PGlite's
 * own BEGIN. PGlite's transaction() is kept (not a hand-made BEGIN) because it also shuts every other
 * caller of the instance out until COMMIT: work started from inside a transaction (a dispatcher woken by
 * it) inherits the database mutex, and must not read the uncommitted rows.
 */
async function pgliteTransaction<T, R>(client: PGlite, dialect: PgDialect, audit: AuditContext, fn: TransactionBody<T, R>, opening?: OpeningStatement<R>): Promise<T> {
  return client.transaction(async (session) => {
    adoptPgliteClient(session, client);
    const tx = new PgliteTransaction(dialect, new PgliteSession(session, dialect, undefined, {}), undefined) as unknown as Tx;
    const sqlSession = sqlSessionOf(session);
    const results = await sqlSession.run(await openingSql(sqlSession, audit, opening));
    return fn(tx, opened<R>(audit, results));
  });
}

/**
 * What every PGlite client of the platform (the instance, and each of its transactions) needs: the
 * instance's prepared statements, and no per-call parsers that only restate its own (readTextTypesAsText).
 */
function adoptPgliteClient(client: object, instance: object = client): void {
  sharePreparedStatements(client, instance);
  skipRestatedParsers(client);
}

/**
 * PostgreSQL: BEGIN, the audit settings, the actor probe and the opening statement go in one
 * simple-protocol round trip (drizzle's own transaction spends one on BEGIN and one on the settings),
 * then fn runs on a drizzle transaction over the same connection. A batch may COMMIT in its own round
 * trip (runStatementsAndCommit); the COMMIT here is then skipped.
 */
async function pgTransaction<T, R>(pool: pg.Pool, dialect: PgDialect, audit: AuditContext, fn: TransactionBody<T, R>, opening?: OpeningStatement<R>): Promise<T> {
  const client = await pool.connect();
  const tx = new NodePgTransaction(dialect, new NodePgSession(client, dialect, undefined, {}), undefined) as unknown as Tx;
  const tracked = trackTransaction(client);
  let broken: Error | undefined;
  try {
    const session = sqlSessionOf(client);
    const [, ...results] = await session.run(`begin;\n${await openingSql(session, audit, opening)}`);
    const result = await fn(tx, opened<R>(audit, results));
    if (tracked.committedByBatch()) return result;
    assertCommitted((await session.run('commit'))[0]);
    return result;
  } catch (err) {
    if (!tracked.committedByBatch()) await client.query('rollback').catch((rollbackFailed: Error) => (broken = rollbackFailed));
    throw err;
  } finally {
    tracked.close();
    client.release(broken);
  }
}

/**
 * PostgreSQL runs only as many statements at once as it has cores; connections beyond about two per core
 * wait on each other's row locks and for the CPU instead of in the pool (docs/benchmarks.md, "Pool size":
 * on 2 cores, 6 against 10 gave the hot reservation +12 % and a fifth less database CPU per call). The
 * service is assumed to run on a machine the size of the database's (DATABASE_POOL_SIZE says otherwise).
 */
export function defaultPoolSize(): number {
  return 2 * availableParallelism() + 2;
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const database = options.url.startsWith('postgres://') || options.url.startsWith('postgresql://')
    ? openPostgres(options)
    : await openPglite(options);
  await database.migrate();
  return database;
}

function openPostgres(options: OpenDatabaseOptions) {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? defaultPoolSize() });
  pool.on('error', () => undefined); // idle client errors surface on the next query
  const db: Db = drizzlePg({ client: pool });
  return {
    kind: 'postgres' as const,
    db,
    migrate: () => migratePg(db as never, { migrationsFolder: options.migrationsFolder }),
    transaction: <T, R>(audit: AuditContext, fn: TransactionBody<T, R>, opening?: OpeningStatement<R>) =>
      pgTransaction(pool, (db as unknown as { dialect: PgDialect }).dialect, audit, fn, opening),
    read: <T>(fn: (q: Queryable) => Promise<T>) => fn(db),
    ping: () => pingPool(pool),
    close: () => pool.end(),
  };
}

/** Whether the server answers on a connection of the pool. */
export async function pingPool(pool: pg.Pool): Promise<boolean> {
  try {
    await pool.query('select 1');
    return true;
  } catch {
    return false;
  }
}

async function openPglite(options: OpenDatabaseOptions) {
  const inMemory = options.url.startsWith('memory://');
  const dir = inMemory ? undefined : options.url.replace(/^file:\/\//, '');
  const archive = inMemory ? new URL(options.url).searchParams.get('from') : null;
  const releaseLock = dir ? acquireDataDirLock(dir) : () => undefined;
  let client: PGlite;
  try {
    if (dir) mkdirSync(dir, { recursive: true });
    client = await PGlite.create({
      ...(dir ? { dataDir: dir } : {}),
      ...(archive ? { loadDataDir: new Blob([readFileSync(archive)]) } : {}),
      extensions: options.pgliteExtensions ?? {},
    });
    readTextTypesAsText(client);
  } catch (err) {
    releaseLock();
    throw err;
  }
  const db: Db = drizzlePglite({ client });
  const dialect = (db as unknown as { dialect: PgDialect }).dialect;
  adoptPgliteClient(client);
  const mutex = new Mutex();
  let closed = false;
  return {
    kind: 'pglite' as const,
    db,
    migrate: () => mutex.runExclusive(() => migratePglite(db as never, { migrationsFolder: options.migrationsFolder })),
    transaction: async <T, R>(audit: AuditContext, fn: TransactionBody<T, R>, opening?: OpeningStatement<R>) => {
      await otherRequestsFirst();
      const result = await mutex.runExclusive(() => pgliteTransaction(client, dialect, audit, fn, opening));
      await otherRequestsFirst(); // and those that arrived while it ran, before its caller answers
      return result;
    },
    read: async <T>(fn: (q: Queryable) => Promise<T>) => {
      if (!mutex.held) await otherRequestsFirst();
      return mutex.runExclusive(() => fn(db));
    },
    ping: async () => !closed && !client.closed,
    close: async () => {
      if (closed) return;
      closed = true;
      await mutex.runExclusive(() => client.close());
      releaseLock();
    },
  };
}

/**
 * PGlite answers without ever waiting on a socket, so a request's whole run is one chain of promise callbacks
 * and a second request sent at the same moment is only read after the first has answered: the idempotency lock
 * of an identical submission (spec 5.4) would never be seen held. Letting pending I/O in before each write
 * transaction, and again after it (the engine runs a whole transaction without looking at the sockets; a twin
 * that arrived meanwhile is read then, while the first call still holds its lock), gives requests in flight the
 * interleaving they have on PostgreSQL. It takes two immediates: one set while the event loop reads sockets
 * runs right after that same read, before the loop looks at the sockets again; the second comes after the next look.
 */
const otherRequestsFirst = () => new Promise<void>((resolve) => setImmediate(() => setImmediate(resolve)));

/** Runs raw SQL and returns its rows typed as T (for reports, checks and tests). */
export async function queryRows<T>(q: Queryable, query: import('drizzle-orm').SQL): Promise<T[]> {
  const result = (await (q as Db).execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
