import { sql } from 'drizzle-orm';
import {
  createMaterial,
  flowCast,
  queryRows,
  stockIn,
  storedRequestOf,
  useTestApp,
  type FlowCast,
  type MaterialJson,
  type RequestJson,
  type StockRowJson,
} from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { ledgerCheck } from './ledger.js';

/**
 * The cast of the outbound tests: mgr (WAREHOUSE_MGR of ALPHA) approves, executes, closes; op (OUTBOUND)
 * selects and executes, does not approve; sales and sales2 (SALES) select only; inbound (INBOUND) has
 * no outbound code at all; betaMgr and betaSales of BETA.
 */
export type OutboundWorld = FlowCast;

export const outboundWorld = (t: TestInventory): Promise<OutboundWorld> => flowCast(t, { sales: '销售甲', sales2: '销售乙' });

/** A fresh app with the outbound cast for the whole test file (useTestApp); checkLedger: ledgerCheck after each test. */
export function useOutboundWorld(receive: (built: { t: TestInventory; w: OutboundWorld }) => void, options: { checkLedger?: boolean } = {}) {
  useTestApp(outboundWorld, receive, options.checkLedger ? ledgerCheck : undefined);
}

/** A new material of `company` with one 在库 stock row per quantity, created in that order. */
export async function materialWithStock(
  t: TestInventory,
  company: string,
  quantities: number[],
  rowOverrides: Record<string, unknown> = {},
): Promise<{ material: MaterialJson; rows: StockRowJson[] }> {
  const material = await createMaterial(t, t.adminToken, { company_name: company });
  const rows: StockRowJson[] = [];
  for (const quantity of quantities) {
    rows.push(await stockIn(t, t.adminToken, { base_id: material.id, in_quantity: quantity, company_name: company, ...rowOverrides }));
  }
  return { material, rows };
}

let remarkCounter = 0;

export function submit(t: TestInventory, token: string, body: Record<string, unknown>) {
  return t.request('POST', '/api/v1/outbound/request', { token, body });
}

export type { RequestJson } from './fixtures.js';

/** Submits and expects 201. Each call carries a distinct remark so the idempotency lock never joins two. */
export async function submitOk(
  t: TestInventory,
  token: string,
  items: Array<{ base_id: number; quantity: number }>,
  extra: Record<string, unknown> = {},
): Promise<RequestJson> {
  remarkCounter += 1;
  const response = await submit(t, token, { outbound_type: 'USE', items, remark: `测试 ${remarkCounter}`, ...extra });
  if (response.statusCode !== 201) throw new Error(`submit failed (${response.statusCode}): ${response.body}`);
  return response.json() as RequestJson;
}

export async function approveOk(t: TestInventory, token: string, id: number): Promise<RequestJson> {
  const response = await t.request('POST', `/api/v1/outbound/request/${id}/approve`, { token });
  if (response.statusCode !== 200) throw new Error(`approve failed (${response.statusCode}): ${response.body}`);
  return response.json() as RequestJson;
}

/** Submitted by `applicant` and approved by the ALPHA manager. */
export async function approvedRequest(
  w: OutboundWorld,
  items: Array<{ base_id: number; quantity: number }>,
  applicant: TestUser = w.sales,
): Promise<RequestJson> {
  const submitted = await submitOk(w.t, applicant.token, items);
  return approveOk(w.t, w.mgr.token, submitted.id);
}

export interface RowState {
  stock: number;
  available: number;
  status: string;
}

/** A stock row's quantities as stored. */
export async function rowState(t: TestInventory, id: number): Promise<RowState> {
  const [row] = await queryRows<{ stock: string; available: string; status: string }>(
    t,
    sql`select stock_quantity::text as stock, available_quantity::text as available, status from stock_rows where id = ${id}`,
  );
  if (!row) throw new Error(`stock row ${id} not found`);
  return { stock: Number(row.stock), available: Number(row.available), status: row.status };
}

export async function countRows(t: TestInventory, table: 'outbound_requests' | 'trans_outbound'): Promise<number> {
  const [row] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from ${sql.identifier(table)}`);
  return row?.n ?? 0;
}

/** The stored status and lines of a request. */
export const storedRequest = (t: TestInventory, id: number) => storedRequestOf(t, 'outbound_requests', id);
