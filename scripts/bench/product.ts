import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { createTokenService, openDatabase, type TokenService } from '@wms/platform';
import { INVENTORY_AUDIENCE, INVENTORY_MIGRATIONS, INVENTORY_PGLITE_EXTENSIONS } from '../../apps/inventory/src/app.js';
import { loadInventoryConfig } from '../../apps/inventory/src/config.js';
import type { NoiseMeter } from './noise-meter.js';
import { startProductServer, type ProductServer } from './product-server.js';
import { createScratchDatabase, type ScratchDatabase } from './scratch-database.js';

export const COMPANY = 'ALPHA';
/** Far more than any run can reserve, as in setup.sql: a reservation never runs short. */
const HUGE = 1_000_000_000;
export const WIDE_ROWS = 10_000;
export const HOT_ROWS = 10;

/** Who the load generator acts as: every concurrent client is its own user (idempotency keys are per user). */
export interface BenchUsers {
  /** SALES: submit (outbound_selection). */
  applicants: string[];
  /** OUTBOUND: scan (outbound_create:operation). */
  operators: string[];
  /** WAREHOUSE_MGR: approve and execute. */
  managers: string[];
}

/** What both engines' products offer the phases: the service over HTTP, the seeded ids and the users. */
export interface SeededProduct {
  server: ProductServer;
  baseUrl: string;
  wideMaterialIds: number[];
  hotMaterialIds: number[];
  /** Barcode (sku) of every stock row by row id. */
  skuOfRow: Map<number, string>;
  wideBarcodes: string[];
  users: BenchUsers;
  close(): Promise<void>;
}

/** The product on PostgreSQL: the bench also reads and seeds its database directly. */
export interface Product extends SeededProduct {
  database: ScratchDatabase;
  /** A client of the bench itself (seeding, reading prepared work); the server's meters never see it. */
  sql: pg.Client;
}

/** The part of pg.Client and PGlite the seeding needs. */
interface SqlRunner {
  query<T>(text: string, params?: unknown[]): Promise<{ rows: T[] }>;
}

/** close() may be called again on the way out (finally): only the first call acts. */
function once(close: () => Promise<void>): () => Promise<void> {
  let closing: Promise<void> | undefined;
  return () => (closing ??= close());
}

type SeededRow = { material: number; row: number; sku: string };

/** 10,000 materials with one 在库 row each, and 10 more for the hot-row case; one statement per table. */
async function seedStock(sql: SqlRunner): Promise<{ wide: SeededRow[]; hot: SeededRow[] }> {
  const seedKind = async (prefix: string, count: number) => {
    const { rows } = await sql.query<SeededRow>(
      `with m as (
         insert into materials (name, category, unit, company_name)
         select $1 || lpad(g::text, 5, '0'), 'bench', 'pcs', $2 from generate_series(1, $3::int) g
         returning id, name
       ), s as (
         insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity, status, warehouse_location)
         select 'stock_buy', m.name, m.id, $4::numeric, $4::numeric, $4::numeric, '在库', 'A-01' from m
         returning id, base_id, sku
       )
       select base_id as material, id as row, sku from s order by id`,
      [prefix, COMPANY, count, HUGE],
    );
    return rows;
  };
  return { wide: await seedKind('W', WIDE_ROWS), hot: await seedKind('H', HOT_ROWS) };
}

type Role = 'SALES' | 'OUTBOUND' | 'WAREHOUSE_MGR';

/** Users inserted directly (no password to check): `clients` of each role. */
async function seedUsers(sql: SqlRunner, clients: number): Promise<Record<Role, Array<{ id: number; name: string }>>> {
  const insert = async (role: Role) => {
    const { rows } = await sql.query<{ id: number; name: string }>(
      `insert into users (username, password_hash, name, role, company_name)
       select lower($1) || '_bench_' || g, '!bench-no-login', $1 || ' ' || g, $1, $2 from generate_series(1, $3::int) g
       returning id, name`,
      [role, COMPANY, clients],
    );
    return rows;
  };
  return { SALES: await insert('SALES'), OUTBOUND: await insert('OUTBOUND'), WAREHOUSE_MGR: await insert('WAREHOUSE_MGR') };
}

/** Signs tokens exactly as the service does: its own configuration read from the same JWT_SECRET, its audience. */
function serviceTokens(jwtSecret: string): TokenService {
  const config = loadInventoryConfig({ JWT_SECRET: jwtSecret, NODE_ENV: 'production', DATA_DIR: tmpdir() });
  return createTokenService(config.jwtSecret, INVENTORY_AUDIENCE);
}

async function tokensFor(jwtSecret: string, users: Record<Role, Array<{ id: number; name: string }>>): Promise<BenchUsers> {
  const tokens = serviceTokens(jwtSecret);
  const sign = (role: Role) =>
    Promise.all(users[role].map((user) => tokens.sign({ sub: String(user.id), role, company_name: COMPANY, name: user.name })));
  return { applicants: await sign('SALES'), operators: await sign('OUTBOUND'), managers: await sign('WAREHOUSE_MGR') };
}

function seededIds(server: ProductServer, seeded: { wide: SeededRow[]; hot: SeededRow[] }, users: BenchUsers) {
  const { wide, hot } = seeded;
  return {
    server,
    baseUrl: server.baseUrl,
    wideMaterialIds: wide.map((row) => row.material),
    hotMaterialIds: hot.map((row) => row.material),
    skuOfRow: new Map([...wide, ...hot].map((row) => [row.row, row.sku])),
    wideBarcodes: wide.map((row) => row.sku),
    users,
  };
}

/**
 * The inventory service as its own process on a fresh PostgreSQL database: it migrates the database, then
 * the bench seeds it by SQL (the service holds no cache of stock or users, so seeding after its start is safe).
 */
export async function startProduct(serverUrl: string, clients: number, noise: NoiseMeter, log: (text: string) => void): Promise<Product> {
  const database = await createScratchDatabase(serverUrl, 'bench_inv');
  noise.watchDatabase(database.name);
  const jwtSecret = randomBytes(24).toString('base64url');
  const server = await startProductServer({ databaseUrl: database.url, jwtSecret }, log);
  const sql = new pg.Client({ connectionString: database.url });
  try {
    await sql.connect();
    const seeded = await seedStock(sql);
    const users = await tokensFor(jwtSecret, await seedUsers(sql, clients));
    await sql.query('analyze');
    return {
      ...seededIds(server, seeded, users),
      database,
      sql,
      close: once(async () => {
        await sql.end();
        await server.stop();
      }),
    };
  } catch (err) {
    await sql.end().catch(() => undefined);
    await server.stop();
    throw err;
  }
}

/**
 * The inventory service as its own process on an on-disk PGlite in a temporary folder. PGlite has one
 * opener at a time, so the bench opens the folder first (migrations as the service runs them), seeds it
 * with the same SQL, closes it, and only then starts the service on it.
 */
export async function startPgliteProduct(clients: number, log: (text: string) => void): Promise<SeededProduct> {
  const folder = mkdtempSync(join(tmpdir(), 'wms-bench-pglite-'));
  const databaseUrl = join(folder, 'inventory');
  const jwtSecret = randomBytes(24).toString('base64url');
  const seeding = await openDatabase({ url: databaseUrl, migrationsFolder: INVENTORY_MIGRATIONS, pgliteExtensions: INVENTORY_PGLITE_EXTENSIONS });
  let seeded: { wide: SeededRow[]; hot: SeededRow[] };
  let users: BenchUsers;
  try {
    const client = (seeding.db as unknown as { $client: SqlRunner }).$client;
    seeded = await seedStock(client);
    users = await tokensFor(jwtSecret, await seedUsers(client, clients));
    await client.query('analyze');
  } finally {
    await seeding.close();
  }
  const server = await startProductServer({ databaseUrl, jwtSecret }, log);
  return {
    ...seededIds(server, seeded, users),
    close: once(async () => {
      await server.stop();
      rmSync(folder, { recursive: true, force: true });
    }),
  };
}
