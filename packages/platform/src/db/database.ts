import { mkdirSync } from 'node:fs';
import { PGlite, type Extensions } from '@electric-sql/pglite';
import { cube } from '@electric-sql/pglite/contrib/cube';
import { sql } from 'drizzle-orm';
import type { PgDatabase, PgQueryResultHKT, PgTransaction } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { migrate as migratePglite } from 'drizzle-orm/pglite/migrator';
import { drizzle as drizzlePg } from 'drizzle-orm/node-postgres';
import { migrate as migratePg } from 'drizzle-orm/node-postgres/migrator';
import pg from 'pg';
import { acquireDataDirLock } from './data-dir-lock.js';
import { Mutex } from './mutex.js';

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
}

export interface Database {
  readonly kind: DatabaseKind;
  readonly db: Db;
  /** Runs fn in one transaction with the audit context set; PGlite runs them strictly one at a time. */
  transaction<T>(audit: AuditContext, fn: (tx: Tx) => Promise<T>): Promise<T>;
  /** Runs reads; in PGlite mode they wait for running transactions so they never see half of one. */
  read<T>(fn: (db: Queryable) => Promise<T>): Promise<T>;
  ping(): Promise<boolean>;
  close(): Promise<void>;
}

export interface OpenDatabaseOptions {
  /** postgres://…, memory://, or a folder path for an on-disk PGlite */
  url: string;
  migrationsFolder: string;
  poolSize?: number;
  /**
   * PGlite extensions the migrations need (e.g. `{ cube }` from @electric-sql/pglite/contrib/cube). A
   * PostgreSQL server has its contrib extensions installed; PGlite loads only those named here.
   */
  pgliteExtensions?: Extensions;
}

/** PGlite's build of the contrib `cube` extension, for a service whose migrations create it. */
export const PGLITE_CUBE: Extensions = { cube };

async function setAuditContext(tx: Tx, audit: AuditContext): Promise<void> {
  await tx.execute(sql`select set_config('app.actor', ${audit.actor}, true),
    set_config('app.company', ${audit.company ?? ''}, true),
    set_config('app.request_url', ${audit.requestUrl ?? ''}, true)`);
}

export async function openDatabase(options: OpenDatabaseOptions): Promise<Database> {
  const database = options.url.startsWith('postgres://') || options.url.startsWith('postgresql://')
    ? openPostgres(options)
    : await openPglite(options);
  await database.migrate();
  return database;
}

function openPostgres(options: OpenDatabaseOptions) {
  const pool = new pg.Pool({ connectionString: options.url, max: options.poolSize ?? 10 });
  pool.on('error', () => undefined); // idle client errors surface on the next query
  const db: Db = drizzlePg({ client: pool });
  return {
    kind: 'postgres' as const,
    db,
    migrate: () => migratePg(db as never, { migrationsFolder: options.migrationsFolder }),
    transaction: <T>(audit: AuditContext, fn: (tx: Tx) => Promise<T>) =>
      db.transaction(async (tx) => {
        await setAuditContext(tx, audit);
        return fn(tx);
      }),
    read: <T>(fn: (q: Queryable) => Promise<T>) => fn(db),
    ping: async () => {
      try {
        await pool.query('select 1');
        return true;
      } catch {
        return false;
      }
    },
    close: () => pool.end(),
  };
}

async function openPglite(options: OpenDatabaseOptions) {
  const inMemory = options.url.startsWith('memory://');
  const dir = inMemory ? undefined : options.url.replace(/^file:\/\//, '');
  const releaseLock = dir ? acquireDataDirLock(dir) : () => undefined;
  let client: PGlite;
  try {
    if (dir) mkdirSync(dir, { recursive: true });
    client = await PGlite.create({ ...(dir ? { dataDir: dir } : {}), extensions: options.pgliteExtensions ?? {} });
  } catch (err) {
    releaseLock();
    throw err;
  }
  const db: Db = drizzlePglite({ client });
  const mutex = new Mutex();
  let closed = false;
  return {
    kind: 'pglite' as const,
    db,
    migrate: () => mutex.runExclusive(() => migratePglite(db as never, { migrationsFolder: options.migrationsFolder })),
    transaction: <T>(audit: AuditContext, fn: (tx: Tx) => Promise<T>) =>
      mutex.runExclusive(() =>
        db.transaction(async (tx) => {
          await setAuditContext(tx, audit);
          return fn(tx);
        }),
      ),
    read: <T>(fn: (q: Queryable) => Promise<T>) => mutex.runExclusive(() => fn(db)),
    ping: async () => !closed && !client.closed,
    close: async () => {
      if (closed) return;
      closed = true;
      await mutex.runExclusive(() => client.close());
      releaseLock();
    },
  };
}

/** Runs raw SQL and returns its rows typed as T (for reports, checks and tests). */
export async function queryRows<T>(q: Queryable, query: import('drizzle-orm').SQL): Promise<T[]> {
  const result = (await (q as Db).execute(query)) as unknown as { rows: T[] };
  return result.rows;
}
