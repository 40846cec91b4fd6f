import { sql, type SQL } from 'drizzle-orm';
import type { TestInventory } from './helpers.js';

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
