import { sql } from 'drizzle-orm';
import { expect } from 'vitest';
import { flowCast, queryRows, storedRequestOf, useTestApp, type FlowCast, type RequestJson } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { ledgerCheck } from './ledger.js';

import { materialWithStock } from './outbound-fixtures.js';

export { materialWithStock, rowState } from './outbound-fixtures.js';

/**
 * The cast of the borrow tests: mgr (WAREHOUSE_MGR of ALPHA) applies, approves, dispatches, returns; op
 * (OUTBOUND) applies and dispatches, does not approve; sales and sales2 (SALES) and inbound (INBOUND)
 * apply and return only (ordinary users); betaMgr and betaSales of BETA.
 */
export type BorrowWorld = FlowCast;

export function borrowWorld(t: TestInventory): Promise<BorrowWorld> {
  return flowCast(t, {
    mgr: '仓管甲',
    op: '发货员',
    sales: '销售甲',
    sales2: '销售乙',
    inbound: '入库员',
    betaMgr: '乙仓管',
    betaSales: '乙销售',
  });
}

/** A fresh app with the borrow cast for the whole test file (useTestApp); checkLedger: borrowLedgerCheck after each test. */
export function useBorrowWorld(receive: (built: { t: TestInventory; w: BorrowWorld }) => void, options: { checkLedger?: boolean } = {}) {
  useTestApp(borrowWorld, receive, options.checkLedger ? borrowLedgerCheck : undefined);
}

export const api = (path: string) => `/api/v1/borrow${path}`;
export const groupApi = (path: string) => `/api/v1/transactions/borrow${path}`;

export type BorrowRequestJson = RequestJson;

export interface TransferJson {
  id: number;
  borrow_id: number;
  from_user_id: number;
  to_user_id: number;
  quantity: number;
  status: string;
  reason: string | null;
  reject_seen_at: string | null;
  [field: string]: unknown;
}

export interface LineJson {
  id: number;
  borrow_no: string;
  stock_id: number;
  base_id: number;
  sku: string;
  quantity: number;
  returned_quantity: number;
  pending_quantity: number;
  borrower_id: number;
  borrower_name: string;
  current_holder_id: number | null;
  status: string;
  is_mine: boolean;
  can_transfer: boolean;
  pending_transfer: TransferJson | null;
  split_from_id: number | null;
  [field: string]: unknown;
}

let remarkCounter = 0;

/** Submits a borrow request and expects 201. Distinct remarks keep the idempotency lock from joining two. */
export async function submitBorrowOk(
  t: TestInventory,
  token: string,
  items: Array<{ base_id: number; quantity: number }>,
  extra: Record<string, unknown> = {},
): Promise<BorrowRequestJson> {
  remarkCounter += 1;
  const response = await t.request('POST', api('/request'), { token, body: { items, remark: `借用 ${remarkCounter}`, ...extra } });
  if (response.statusCode !== 201) throw new Error(`borrow submit failed (${response.statusCode}): ${response.body}`);
  return response.json() as BorrowRequestJson;
}

export async function approveBorrowOk(t: TestInventory, token: string, id: number): Promise<BorrowRequestJson> {
  const response = await t.request('POST', api(`/request/${id}/approve`), { token });
  if (response.statusCode !== 200) throw new Error(`borrow approve failed (${response.statusCode}): ${response.body}`);
  return response.json() as BorrowRequestJson;
}

export async function approvedBorrow(w: BorrowWorld, items: Array<{ base_id: number; quantity: number }>, applicant: TestUser = w.sales) {
  const submitted = await submitBorrowOk(w.t, applicant.token, items);
  return approveBorrowOk(w.t, w.mgr.token, submitted.id);
}

export function dispatch(t: TestInventory, token: string, body: Record<string, unknown>) {
  return t.request('POST', api('/dispatch'), { token, body });
}

export async function dispatchOk(t: TestInventory, token: string, body: Record<string, unknown>): Promise<{ borrow_no: string; lines: LineJson[] }> {
  const response = await dispatch(t, token, body);
  if (response.statusCode !== 201) throw new Error(`dispatch failed (${response.statusCode}): ${response.body}`);
  return response.json() as { borrow_no: string; lines: LineJson[] };
}

/**
 * A dispatched slip: one material with one row of `stock`, a request for `quantity` by sales, approved
 * and dispatched by the manager to `borrower` (sales by default). Answers the row, the slip and its line.
 */
export async function borrowedLine(w: BorrowWorld, quantity = 4, stock = 10, borrower: TestUser = w.sales) {
  const { material, rows } = await materialWithStock(w.t, 'ALPHA', [stock]);
  const request = await approvedBorrow(w, [{ base_id: material.id, quantity }]);
  const slip = await dispatchOk(w.t, w.mgr.token, {
    request_id: request.id,
    borrower_id: borrower.id,
    lines: [{ barcode: rows[0]!.sku, quantity }],
    location: '研发部',
  });
  return { material, row: rows[0]!, request, slip, line: slip.lines[0]! };
}

export const post = (t: TestInventory, path: string, token: string, body?: unknown) => t.request('POST', api(path), { token, body });
export const get = (t: TestInventory, path: string, token: string) => t.request('GET', api(path), { token });

export async function countOf(t: TestInventory, table: 'borrow_requests' | 'trans_borrow' | 'trans_borrow_return' | 'trans_borrow_transfer') {
  const [row] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from ${sql.identifier(table)}`);
  return row?.n ?? 0;
}

/** Row counts of every borrow table, to prove a refused call wrote nothing. */
export async function borrowCounts(t: TestInventory) {
  return {
    requests: await countOf(t, 'borrow_requests'),
    lines: await countOf(t, 'trans_borrow'),
    returns: await countOf(t, 'trans_borrow_return'),
    transfers: await countOf(t, 'trans_borrow_transfer'),
  };
}

export const storedBorrowRequest = (t: TestInventory, id: number) => storedRequestOf(t, 'borrow_requests', id);

export async function storedLine(t: TestInventory, id: number) {
  const [row] = await queryRows<{ quantity: string; returned_quantity: string; status: string; current_holder_id: number | null; borrower_id: number }>(
    t,
    sql`select quantity::text, returned_quantity::text, status, current_holder_id, borrower_id from trans_borrow where id = ${id}`,
  );
  if (!row) throw new Error(`borrow line ${id} not found`);
  return { ...row, quantity: Number(row.quantity), returned_quantity: Number(row.returned_quantity) };
}

/**
 * The ledger identity (stock − reservations − borrowed-not-returned = available) plus the borrow
 * invariants: a borrowed line has a holder and something out, a returned line neither; returned_quantity
 * equals the sum of its return rows; at most one PENDING transfer per line, and only on a line still out
 * with the transfer's initiator.
 */
export async function borrowLedgerCheck(t: TestInventory): Promise<void> {
  await ledgerCheck(t);
  const broken = await queryRows(
    t,
    sql`select b.id, b.status, b.current_holder_id, b.quantity::text, b.returned_quantity::text
          from trans_borrow b
         where (b.status = 'borrowed' and (b.current_holder_id is null or b.returned_quantity >= b.quantity))
            or (b.status = 'returned' and (b.current_holder_id is not null or b.returned_quantity <> b.quantity))
            or b.returned_quantity <> coalesce((select sum(r.quantity) from trans_borrow_return r where r.borrow_id = b.id), 0)`,
  );
  expect(broken).toEqual([]);
  const doublePending = await queryRows(
    t,
    sql`select borrow_id, count(*)::int as n from trans_borrow_transfer where status = 'PENDING' group by borrow_id having count(*) > 1`,
  );
  expect(doublePending).toEqual([]);
  const strayPending = await queryRows(
    t,
    sql`select x.id from trans_borrow_transfer x join trans_borrow b on b.id = x.borrow_id
         where x.status = 'PENDING' and (b.status <> 'borrowed' or b.current_holder_id <> x.from_user_id
            or x.quantity <> b.quantity - b.returned_quantity)`,
  );
  expect(strayPending).toEqual([]);
}
