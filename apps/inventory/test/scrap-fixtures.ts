import { sql } from 'drizzle-orm';
import { flowCast, queryRows, storedRequestOf, type FlowCast } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { materialWithStock, rowState } from './outbound-fixtures.js';
import { returnOk, shipFromRow, type LedgerJson } from './returns-fixtures.js';

export { materialWithStock, rowState };

/**
 * The cast of the scrap tests: mgr (WAREHOUSE_MGR of ALPHA: scrap_create:operation → scrap_apply and
 * scrap_execute, scrap_list with loss_amount, defective_scrap, op_return:operation) approves when named
 * and executes; op (OUTBOUND: scrap_apply, op_return:operation) and inbound (INBOUND: scrap_apply) apply;
 * sales (SALES: op_return:operation only); betaMgr and betaSales of BETA.
 */
export type ScrapWorld = FlowCast;

export const scrapWorld = (t: TestInventory): Promise<ScrapWorld> =>
  flowCast(t, { mgr: '仓管甲', op: '发货员', sales: '销售甲', sales2: '销售乙', inbound: '入库员', betaMgr: '乙仓管', betaSales: '乙销售' });

export const scrapApi = (path: string) => `/api/v1/scrap${path}`;

export interface ScrapLineJson {
  source_table: string;
  stock_id: number;
  base_id: number;
  scrap_qty: number;
  quantity: number;
  location: string;
  reserved: boolean;
  sku: string | null;
  [field: string]: unknown;
}

export interface ScrapRequestJson {
  id: number;
  status: number;
  status_label: string;
  applicant_id: number;
  company_name: string;
  close_reason: string | null;
  mode: string;
  reason: string;
  reason_category: string;
  allowed_approvers: number[];
  track_ref: string | null;
  executor_id: number | null;
  executed_at: string | null;
  items: ScrapLineJson[];
  [field: string]: unknown;
}

let reasonCounter = 0;
/** A distinct reason per call keeps the idempotency lock from joining two submissions. */
export const nextReason = (prefix = '报废原因') => `${prefix} ${++reasonCounter}`;

export const post = (t: TestInventory, path: string, token: string, body?: unknown) => t.request('POST', path, { token, body });

/** POST /scrap/request for stock rows; approvers default to the ALPHA manager. */
export function submitStockScrap(t: TestInventory, token: string, body: Record<string, unknown>) {
  return post(t, scrapApi('/request'), token, { reason: nextReason(), ...body });
}

export async function ok<T = ScrapRequestJson>(response: { statusCode: number; body: string; json(): unknown }, status = 200): Promise<T> {
  if (response.statusCode !== status) throw new Error(`expected ${status}, got ${response.statusCode}: ${response.body}`);
  return response.json() as T;
}

/** A scrap request for `quantity` of one stock row, submitted by `applicant` with mgr as the approver. */
export async function stockScrapOk(w: ScrapWorld, row: { id: number; source_table: string }, quantity: number, applicant: TestUser = w.op, extra: Record<string, unknown> = {}) {
  const response = await submitStockScrap(w.t, applicant.token, {
    items: [{ source_table: row.source_table, stock_id: row.id, scrap_qty: quantity }],
    approver_ids: [w.mgr.id],
    ...extra,
  });
  return ok(response, 201);
}

export const approve = (w: ScrapWorld, id: number, user: TestUser = w.mgr) => post(w.t, scrapApi(`/request/${id}/approve`), user.token);
export const approveOk = async (w: ScrapWorld, id: number, user: TestUser = w.mgr) => ok(await approve(w, id, user));

export const execute = (w: ScrapWorld, id: number, body?: unknown, user: TestUser = w.mgr) =>
  post(w.t, scrapApi(`/request/${id}/execute`), user.token, body);

/** Submitted by op, approved by mgr. */
export async function approvedStockScrap(w: ScrapWorld, row: { id: number; source_table: string }, quantity: number) {
  const submitted = await stockScrapOk(w, row, quantity);
  return approveOk(w, submitted.id);
}

/** A ledger entry holding `held` of a row of `stock`, returned as defective from an outbound (ALPHA unless BETA). */
export async function heldEntry(w: ScrapWorld, stock: number, held: number, options: { company?: 'ALPHA' | 'BETA'; rowOverrides?: Record<string, unknown> } = {}) {
  const beta = options.company === 'BETA';
  const { material, rows } = await materialWithStock(w.t, options.company ?? 'ALPHA', [stock], options.rowOverrides);
  const row = rows[0]!;
  const line = await shipFromRow(w, row, held, beta ? { applicant: w.betaSales, approver: w.betaMgr, executor: w.betaMgr } : {});
  const result = await returnOk(w.t, (beta ? w.betaMgr : w.mgr).token, { outbound_id: line.id, return_type: 'defective', quantity: held });
  return { material, row, line, entry: result.ledger_entry! as LedgerJson };
}

export const ledgerScrapPath = (id: number, group = '/inbound/stock') => `/api/v1${group}/defective/${id}/scrap-request`;

export async function ledgerScrapOk(w: ScrapWorld, entryId: number, quantity: number, user: TestUser = w.mgr) {
  return ok(await post(w.t, ledgerScrapPath(entryId), user.token, { quantity, reason: nextReason('不良'), approver_ids: [w.mgr.id] }), 201);
}

export const storedScrapRequest = (t: TestInventory, id: number) => storedRequestOf(t, 'scrap_requests', id);

export async function storedEntry(t: TestInventory, id: number) {
  const [entry] = await queryRows<{ remaining_qty: string; status: string }>(
    t,
    sql`select remaining_qty::text, status from trans_defective_goods where id = ${id}`,
  );
  return entry!;
}

/** Row counts of the scrap tables and the audit log, to prove that a refused call wrote nothing. */
export async function scrapCounts(t: TestInventory) {
  const [row] = await queryRows<{ requests: number; records: number; audits: number }>(
    t,
    sql`select (select count(*)::int from scrap_requests) as requests,
               (select count(*)::int from trans_scrap) as records,
               (select count(*)::int from audit_logs) as audits`,
  );
  return row!;
}

export interface ScrapRecordRow {
  source_table: string;
  stock_id: number;
  quantity: string;
  cost_at_scrap: string;
  total_loss: string;
  reason_category: string | null;
  track_ref: string | null;
  operator: string;
  company_name: string;
}

export function recordsOfRequest(t: TestInventory, requestId: number): Promise<ScrapRecordRow[]> {
  return queryRows<ScrapRecordRow>(
    t,
    sql`select source_table, stock_id, quantity::text, cost_at_scrap::text, total_loss::text, reason_category, track_ref, operator, company_name
          from trans_scrap where request_id = ${requestId} order by id`,
  );
}
