import { sql } from 'drizzle-orm';
import { queryRows } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';

/** Shared fixtures of the purchase, supplier and mail-outbox tests. */

export const PURCHASE = '/api/v1/purchase';

export interface PurchaseJson {
  id: number;
  request_no: string;
  batch_key: string;
  base_id: number;
  material_name: string;
  spec_model: string;
  company_name: string;
  quantity: number;
  status: number;
  status_label: string;
  requester_id: number;
  supplier_id: number | null;
  supplier_name: string | null;
  purchase_date: string;
  expected_date: string | null;
  [field: string]: unknown;
}

export interface BatchJson {
  batch_key: string;
  requests: PurchaseJson[];
}

/**
 * The purchasing cast: ALPHA's warehouse manager (every inbound_purchase code: approves, sees prices and
 * the pool), an INBOUND clerk (inbound_buy only), two SALES requesters, and BETA's warehouse manager.
 */
export interface PurchaseCast {
  t: TestInventory;
  mgr: TestUser;
  inbound: TestUser;
  sales: TestUser;
  sales2: TestUser;
  betaMgr: TestUser;
}

export async function purchaseCast(t: TestInventory): Promise<PurchaseCast> {
  return {
    t,
    mgr: await t.user('WAREHOUSE_MGR', 'ALPHA', { name: '采购经理' }),
    inbound: await t.user('INBOUND', 'ALPHA', { name: '入库员' }),
    sales: await t.user('SALES', 'ALPHA', { name: '申请人甲' }),
    sales2: await t.user('SALES', 'ALPHA', { name: '申请人乙' }),
    betaMgr: await t.user('WAREHOUSE_MGR', 'BETA', { name: 'BETA经理' }),
  };
}

export function submitPurchase(t: TestInventory, token: string, items: Record<string, unknown>[], extra: Record<string, unknown> = {}) {
  return t.request('POST', PURCHASE, { token, body: { items, ...extra } });
}

let remarkCounter = 0;

/** POST /purchase answering 201; a distinct remark keeps the idempotency lock out of the way. */
export async function submitOk(t: TestInventory, token: string, items: Record<string, unknown>[], extra: Record<string, unknown> = {}): Promise<BatchJson> {
  remarkCounter += 1;
  const withRemark = items.map((item, index) => ({ remark: `备注 ${remarkCounter}-${index}`, ...item }));
  const response = await submitPurchase(t, token, withRemark, extra);
  if (response.statusCode !== 201) throw new Error(`purchase submit failed (${response.statusCode}): ${response.body}`);
  return response.json() as BatchJson;
}

export function decide(t: TestInventory, token: string, id: number, action: string, reason?: string) {
  return t.request('PATCH', `${PURCHASE}/${id}/approve`, { token, body: reason === undefined ? { action } : { action, reason } });
}

export async function decideOk(t: TestInventory, token: string, id: number, action: string): Promise<PurchaseJson> {
  const response = await decide(t, token, id, action);
  if (response.statusCode !== 200) throw new Error(`purchase ${action} failed (${response.statusCode}): ${response.body}`);
  return response.json() as PurchaseJson;
}

/** A submitted and approved request of `quantity` of the material: in transit from now on. */
export async function approvedPurchase(c: PurchaseCast, baseId: number, quantity: number, extra: Record<string, unknown> = {}): Promise<PurchaseJson> {
  const batch = await submitOk(c.t, c.sales.token, [{ base_id: baseId, quantity, ...extra }]);
  return decideOk(c.t, c.mgr.token, batch.requests[0]!.id, 'approve');
}

export async function countPurchases(t: TestInventory): Promise<number> {
  const [row] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from purchase_requests`);
  return row?.n ?? 0;
}

export interface MailRow {
  id: number;
  kind: string;
  to_addresses: string[];
  subject: string;
  body: string;
}

/** Mails of a kind whose body mentions the text, oldest first. */
export const mailsMentioning = (t: TestInventory, kind: string, text: string) =>
  queryRows<MailRow>(t, sql`select id::int, kind, to_addresses, subject, body from mail_outbox where kind = ${kind} and body like ${`%${text}%`} order by id`);
