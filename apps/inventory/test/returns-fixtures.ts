import { sql } from 'drizzle-orm';
import { queryRows } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { approveOk, submitOk, type OutboundWorld } from './outbound-fixtures.js';

/** Shared fixtures of the returns, defective-ledger and notification tests. */

export const RETURN_PATH = '/api/v1/inbound/stock/return-from-outbound';

export interface OutboundLineJson {
  id: number;
  outbound_no: string;
  request_id: number;
  applicant_id: number | null;
  consumer_name: string;
  outbound_type: string;
  stock_id: number;
  sku: string;
  base_id: number;
  quantity: number;
  operator: string;
  company_name: string;
  [field: string]: unknown;
}

/**
 * Ships `quantity` of a material from one row: the request is submitted by `applicant` (SALES of ALPHA
 * by default), approved by `approver` (the ALPHA manager) and executed by scan by `executor` (the ALPHA
 * OUTBOUND user). Answers the line.
 */
export async function shipFromRow(
  w: OutboundWorld,
  row: { base_id: number; sku: string },
  quantity: number,
  options: { applicant?: TestUser; approver?: TestUser; executor?: TestUser; consumer?: string; outboundType?: string } = {},
): Promise<OutboundLineJson> {
  const applicant = options.applicant ?? w.sales;
  const submitted = await submitOk(w.t, applicant.token, [{ base_id: row.base_id, quantity }], {
    outbound_type: options.outboundType ?? 'USE',
  });
  const request = await approveOk(w.t, (options.approver ?? w.mgr).token, submitted.id);
  const response = await w.t.request('POST', '/api/v1/outbound', {
    token: (options.executor ?? w.op).token,
    body: { request_id: request.id, consumer_name: options.consumer ?? '领用人张三', lines: [{ barcode: row.sku, quantity }] },
  });
  if (response.statusCode !== 201) throw new Error(`execute failed (${response.statusCode}): ${response.body}`);
  return (response.json() as { lines: OutboundLineJson[] }).lines[0]!;
}

let reasonCounter = 0;

/** POST return-from-outbound; a distinct reason by default keeps the idempotency lock out of the way. */
export function postReturn(t: TestInventory, token: string, body: Record<string, unknown>, path = RETURN_PATH) {
  reasonCounter += 1;
  return t.request('POST', path, { token, body: { reason: `退货原因 ${reasonCounter}`, ...body } });
}

export async function returnOk(t: TestInventory, token: string, body: Record<string, unknown>) {
  const response = await postReturn(t, token, body);
  if (response.statusCode !== 201) throw new Error(`return failed (${response.statusCode}): ${response.body}`);
  return response.json() as { return: ReturnJson; ledger_entry: LedgerJson | null; reissue_request: Record<string, unknown> | null };
}

export interface ReturnJson {
  id: number;
  outbound_id: number;
  outbound_no: string;
  return_type: string;
  quantity: number;
  reason: string;
  operator: string;
  company_name: string;
  sku: string;
  material_name: string;
  spec_model: string;
  created_at: string;
  [field: string]: unknown;
}

export interface LedgerJson {
  id: number;
  return_id: number;
  sku: string;
  stock_id: number;
  quantity: number;
  remaining_qty: number;
  status: string;
  company_name: string;
  company: string;
  [field: string]: unknown;
}

/** Row counts of the tables a return may write (to prove that a refused call wrote nothing). */
export async function returnTableCounts(t: TestInventory) {
  const [row] = await queryRows<{ returns: number; ledger: number; requests: number; audits: number }>(
    t,
    sql`select (select count(*)::int from trans_return) as returns,
               (select count(*)::int from trans_defective_goods) as ledger,
               (select count(*)::int from outbound_requests) as requests,
               (select count(*)::int from audit_logs) as audits`,
  );
  return row!;
}

export async function setEmail(t: TestInventory, user: TestUser, email: string | null): Promise<void> {
  const response = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { email } });
  if (response.statusCode !== 200) throw new Error(`setting email failed (${response.statusCode}): ${response.body}`);
}

/** Waits for an after-commit effect: polls `read` until `done` holds (or gives up after ~3 s). */
export async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 3000): Promise<T> {
  const until = Date.now() + timeoutMs;
  let value = await read();
  while (!done(value) && Date.now() < until) {
    await new Promise((resolve) => setTimeout(resolve, 50));
    value = await read();
  }
  return value;
}
