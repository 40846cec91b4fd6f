import { sql, type SQL } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll } from 'vitest';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

/** Shared test fixtures: they go through the API like a user would, and throw when the API refuses. */

export interface MaterialJson {
  id: number;
  base_id: number;
  name: string;
  spec_model: string;
  category: string;
  unit: string;
  company_name: string;
  [field: string]: unknown;
}

export interface StockRowJson {
  id: number;
  source_table: string;
  sku: string;
  base_id: number;
  material_name: string;
  company_name: string;
  stock_quantity: number;
  available_quantity: number;
  in_quantity: number;
  status: string;
  warehouse_location: string;
  batch_number: string | null;
  serial_number: string | null;
  [field: string]: unknown;
}

/**
 * Registers a test file's app: before all tests a fresh app and its cast (`build`) are handed to
 * `receive`; after each test `afterEachTest` runs when given (e.g. the ledger check); after all tests
 * the app is closed.
 */
export function useTestApp<W>(
  build: (t: TestInventory) => Promise<W>,
  receive: (built: { t: TestInventory; w: W }) => void,
  afterEachTest?: (t: TestInventory) => Promise<void>,
): void {
  let app: TestInventory | undefined;
  beforeAll(async () => {
    app = await buildTestInventory();
    receive({ t: app, w: await build(app) });
  });
  afterAll(() => app?.close());
  if (afterEachTest) afterEach(() => afterEachTest(app!));
}

/**
 * The cast of the stock-holding flows (outbound, borrow, returns): two companies and the roles that
 * matter. Created in this order; a name not given is the default `<ROLE> <n>`.
 */
export interface FlowCast {
  t: TestInventory;
  admin: string;
  /** WAREHOUSE_MGR of ALPHA. */
  mgr: TestUser;
  /** OUTBOUND of ALPHA. */
  op: TestUser;
  /** SALES of ALPHA. */
  sales: TestUser;
  sales2: TestUser;
  /** INBOUND of ALPHA. */
  inbound: TestUser;
  /** WAREHOUSE_MGR of BETA. */
  betaMgr: TestUser;
  /** SALES of BETA. */
  betaSales: TestUser;
}

export type CastNames = Partial<Record<Exclude<keyof FlowCast, 't' | 'admin'>, string>>;

export async function flowCast(t: TestInventory, names: CastNames = {}): Promise<FlowCast> {
  return {
    t,
    admin: t.adminToken,
    mgr: await t.user('WAREHOUSE_MGR', 'ALPHA', { name: names.mgr }),
    op: await t.user('OUTBOUND', 'ALPHA', { name: names.op }),
    sales: await t.user('SALES', 'ALPHA', { name: names.sales }),
    sales2: await t.user('SALES', 'ALPHA', { name: names.sales2 }),
    inbound: await t.user('INBOUND', 'ALPHA', { name: names.inbound }),
    betaMgr: await t.user('WAREHOUSE_MGR', 'BETA', { name: names.betaMgr }),
    betaSales: await t.user('SALES', 'BETA', { name: names.betaSales }),
  };
}

/** A stock-holding request as the API answers it (outbound, borrow). */
export interface RequestJson {
  id: number;
  status: number;
  status_label: string;
  applicant_id: number;
  company_name: string;
  close_reason: string | null;
  items: Array<{ base_id: number; quantity: number; stock_id: number; source_table: string; reserved: boolean; sku: string | null }>;
  [field: string]: unknown;
}

/** The stored status and lines of a request of the given table. */
export async function storedRequestOf(t: TestInventory, table: 'outbound_requests' | 'borrow_requests' | 'scrap_requests', id: number) {
  const [row] = await queryRows<{ status: number; close_reason: string | null; items_json: Array<{ stock_id: number; quantity: string; reserved: boolean }> }>(
    t,
    sql`select status, close_reason, items_json from ${sql.identifier(table)} where id = ${id}`,
  );
  return row!;
}

let materialCounter = 0;

/**
 * POST /inbound/base. Defaults: a unique name and spec_model, category ALPHA/电子/电阻, unit 个.
 * A cross-domain caller (admin) must pass company_name in overrides.
 */
export async function createMaterial(t: TestInventory, token: string, overrides: Record<string, unknown> = {}): Promise<MaterialJson> {
  materialCounter += 1;
  const suffix = `${materialCounter}-${Math.random().toString(36).slice(2, 6)}`;
  const body = { name: `测试物料${suffix}`, category: 'ALPHA/电子/电阻', spec_model: `SPEC-${suffix}`, unit: '个', ...overrides };
  const response = await t.request('POST', '/api/v1/inbound/base', { token, body });
  if (response.statusCode !== 201) throw new Error(`createMaterial failed (${response.statusCode}): ${response.body}`);
  return response.json() as MaterialJson;
}

/**
 * POST /inbound/stock. Defaults: source_table stock_buy, in_quantity 10, warehouse_location A/01/01;
 * body must name base_id.
 */
export async function stockIn(t: TestInventory, token: string, body: Record<string, unknown>): Promise<StockRowJson> {
  const payload = { source_table: 'stock_buy', in_quantity: 10, warehouse_location: 'A/01/01', ...body };
  const response = await t.request('POST', '/api/v1/inbound/stock', { token, body: payload });
  if (response.statusCode !== 201) throw new Error(`stockIn failed (${response.statusCode}): ${response.body}`);
  return response.json() as StockRowJson;
}

/** Rows of a raw SQL read (for checking what was written; never a substitute for the API under test). */
export async function queryRows<T = Record<string, unknown>>(t: TestInventory, query: SQL): Promise<T[]> {
  const result = (await t.service.deps.database.read((q) => q.execute(query))) as unknown as { rows: T[] };
  return result.rows;
}

/**
 * Holds back part of a row as if it were reserved or borrowed, by lowering available_quantity directly.
 * Stands in for reservations until the outbound and borrow modules create them in tests.
 */
export async function holdQuantityDirectly(t: TestInventory, stockId: number, quantity: number): Promise<void> {
  await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) =>
    tx.execute(sql`update stock_rows set available_quantity = available_quantity - ${String(quantity)}::numeric where id = ${stockId}`),
  );
}

export interface AuditRow {
  module: string;
  action: string;
  target_id: string;
  target_name: string | null;
  username: string;
  company_name: string | null;
  request_url: string | null;
  details: Record<string, unknown>;
}

/** Audit records of one stock row, oldest first. */
export function stockAuditRecords(t: TestInventory, stockId: number): Promise<AuditRow[]> {
  return queryRows<AuditRow>(
    t,
    sql`select module, action, target_id, target_name, username, company_name, request_url, details
          from audit_logs where table_name = 'stock_rows' and target_id = ${String(stockId)} order by id`,
  );
}

export async function countStockRows(t: TestInventory): Promise<number> {
  const [row] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from stock_rows`);
  return row?.n ?? 0;
}
