import type { AddressInfo } from 'node:net';
import pg from 'pg';
import { createLockStore } from '@wms/platform';
import { buildInventoryApp, type InventoryApp } from '../../apps/inventory/src/app.js';
import type { InventoryConfig } from '../../apps/inventory/src/config.js';
import { unmetered } from './query-meter.js';
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

export interface Product {
  service: InventoryApp;
  database: ScratchDatabase;
  baseUrl: string;
  wideMaterialIds: number[];
  hotMaterialIds: number[];
  /** Barcode (sku) of every stock row by row id. */
  skuOfRow: Map<number, string>;
  wideBarcodes: string[];
  users: BenchUsers;
  /** A client of the bench itself (seeding, reading prepared work); not counted as server queries. */
  sql: pg.Client;
  close(): Promise<void>;
}

function benchConfig(databaseUrl: string): InventoryConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir: '/tmp/wms-bench',
    databaseUrl,
    jwtSecret: 'bench-secret-for-inventory-0123456789',
    adminUsername: 'admin',
    adminPassword: 'admin-pass-123',
    seedDemo: false,
    nodeEnv: 'test',
  };
}

/** 10,000 materials with one 在库 row each, and 10 more for the hot-row case; one statement per table. */
async function seedStock(sql: pg.Client): Promise<{ wide: Array<{ material: number; row: number; sku: string }>; hot: Array<{ material: number; row: number; sku: string }> }> {
  const seedKind = async (prefix: string, count: number) => {
    const { rows } = await sql.query<{ material: number; row: number; sku: string }>(
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

/** Users inserted directly (no password to check) and tokens signed with the service's own key. */
async function seedUsers(sql: pg.Client, service: InventoryApp, counts: Record<'SALES' | 'OUTBOUND' | 'WAREHOUSE_MGR', number>): Promise<BenchUsers> {
  const tokensOf = async (role: keyof typeof counts) => {
    const { rows } = await sql.query<{ id: number; name: string }>(
      `insert into users (username, password_hash, name, role, company_name)
       select lower($1) || '_bench_' || g, '!bench-no-login', $1 || ' ' || g, $1, $2 from generate_series(1, $3::int) g
       returning id, name`,
      [role, COMPANY, counts[role]],
    );
    return Promise.all(
      rows.map((user) => service.deps.tokens.sign({ sub: String(user.id), role, company_name: COMPANY, name: user.name })),
    );
  };
  return { applicants: await tokensOf('SALES'), operators: await tokensOf('OUTBOUND'), managers: await tokensOf('WAREHOUSE_MGR') };
}

/** The inventory service on a fresh PostgreSQL database, seeded and listening on a free local port. */
export async function startProduct(serverUrl: string, clients: number): Promise<Product> {
  const database = await createScratchDatabase(serverUrl, 'bench_inv');
  const service = await buildInventoryApp(benchConfig(database.url), { locks: createLockStore(undefined) });
  const sql = unmetered(new pg.Client({ connectionString: database.url }));
  await sql.connect();
  const { wide, hot } = await seedStock(sql);
  await sql.query('analyze');
  const users = await seedUsers(sql, service, { SALES: clients, OUTBOUND: clients, WAREHOUSE_MGR: clients });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = service.app.server.address() as AddressInfo;
  return {
    service,
    database,
    baseUrl: `http://127.0.0.1:${port}`,
    wideMaterialIds: wide.map((row) => row.material),
    hotMaterialIds: hot.map((row) => row.material),
    skuOfRow: new Map([...wide, ...hot].map((row) => [row.row, row.sku])),
    wideBarcodes: wide.map((row) => row.sku),
    users,
    sql,
    async close() {
      await sql.end();
      await service.close();
    },
  };
}
