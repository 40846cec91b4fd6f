import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { usingPostgres } from '@wms/platform/testing';
import { queryRows, useTestApp } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { ledgerCheck } from './ledger.js';
import { approvedBorrow, borrowLedgerCheck, dispatchOk } from './borrow-fixtures.js';
import {
  approveOk,
  approvedStockScrap,
  execute,
  heldEntry,
  ledgerScrapOk,
  materialWithStock,
  rowState,
  scrapWorld,
  storedEntry,
  type ScrapWorld,
} from './scrap-fixtures.js';

let t: TestInventory;
let w: ScrapWorld;

useTestApp(scrapWorld, (built) => ({ t, w } = built), ledgerCheck);

type Outcome = { statusCode: number; json(): { code?: string } };
const outcome = (response: Outcome) => (response.statusCode < 300 ? 'OK' : `${response.statusCode} ${response.json().code}`);

async function recordCount(requestIds: number[]): Promise<number> {
  const [row] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from trans_scrap where request_id = any(${sql.param(requestIds)}::int[])`);
  return row!.n;
}

/** Executors of different users, so the idempotency lock never joins two calls: the database decides. */
async function executors(n: number): Promise<TestUser[]> {
  return [w.mgr, ...(await Promise.all(Array.from({ length: n - 1 }, () => t.user('WAREHOUSE_MGR', 'ALPHA'))))];
}

describe.skipIf(!usingPostgres())('PostgreSQL: scrap executions racing', () => {
  it('over-subscribed ledger requests: executions race, the ledger never goes below zero, the losers change nothing', async () => {
    const users = await executors(6);
    for (let round = 0; round < 5; round++) {
      const { entry } = await heldEntry(w, 20, 5);
      const requests = [];
      for (let i = 0; i < 6; i++) requests.push(await approveOk(w, (await ledgerScrapOk(w, entry.id, 2)).id));
      const responses = await Promise.all(requests.map((request, i) => execute(w, request.id, undefined, users[i]!)));
      const outcomes = responses.map(outcome);
      expect(outcomes.filter((o) => o === 'OK')).toHaveLength(2); // 5 held: two of 2 fit, the third does not
      expect(outcomes.filter((o) => o !== 'OK').every((o) => o === '400 QUANTITY_EXCEEDS'), outcomes.join()).toBe(true);
      expect(await storedEntry(t, entry.id)).toEqual({ remaining_qty: '1', status: '待处理' });
      expect(await recordCount(requests.map((request) => request.id))).toBe(2);
      await ledgerCheck(t);
    }
  });

  it('ledger requests that empty the entry exactly: one reaches 已报废, never below zero', async () => {
    const users = await executors(4);
    const { entry } = await heldEntry(w, 20, 3);
    const requests = [];
    for (let i = 0; i < 4; i++) requests.push(await approveOk(w, (await ledgerScrapOk(w, entry.id, 3)).id));
    const outcomes = (await Promise.all(requests.map((request, i) => execute(w, request.id, {}, users[i]!)))).map(outcome);
    expect(outcomes.filter((o) => o === 'OK')).toHaveLength(1);
    expect(outcomes.filter((o) => o !== 'OK').every((o) => o === '400 STATUS_NOT_ALLOWED'), outcomes.join()).toBe(true);
    expect(Number((await storedEntry(t, entry.id)).remaining_qty)).toBe(0);
    expect((await storedEntry(t, entry.id)).status).toBe('已报废');
  });

  it('parallel executions of one request deduct once (scan mode)', async () => {
    const users = await executors(6);
    for (let round = 0; round < 5; round++) {
      const { rows } = await materialWithStock(t, 'ALPHA', [10]);
      const request = await approvedStockScrap(w, rows[0]!, 4);
      const responses = await Promise.all(
        users.map((user, i) => execute(w, request.id, { scans: [{ barcode: rows[0]!.sku, quantity: 4 - (i % 2) }] }, user)),
      );
      const outcomes = responses.map(outcome);
      expect(outcomes.filter((o) => o === 'OK')).toHaveLength(1);
      expect(outcomes.filter((o) => o !== 'OK').every((o) => o === '400 STATUS_NOT_ALLOWED'), outcomes.join()).toBe(true);
      const winner = responses.findIndex((response) => response.statusCode < 300);
      const taken = 4 - (winner % 2);
      expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 10 - taken, available: 10 - taken, status: '在库' });
      expect(await recordCount([request.id])).toBe(1);
    }
  });

  it('parallel executions of one request deduct once (auto mode, ledger)', async () => {
    const users = await executors(6);
    const { entry } = await heldEntry(w, 20, 6);
    const request = await approveOk(w, (await ledgerScrapOk(w, entry.id, 2)).id);
    const outcomes = (await Promise.all(users.map((user) => execute(w, request.id, undefined, user)))).map(outcome);
    expect(outcomes.filter((o) => o === 'OK')).toHaveLength(1);
    expect(outcomes.filter((o) => o !== 'OK').every((o) => o === '400 STATUS_NOT_ALLOWED'), outcomes.join()).toBe(true);
    expect(await storedEntry(t, entry.id)).toEqual({ remaining_qty: '4', status: '待处理' });
    expect(await recordCount([request.id])).toBe(1);
  });

  it('scrap submissions, executions and outbound reservations on the same rows keep the ledger identity', async () => {
    const users = await executors(4);
    const { material, rows } = await materialWithStock(t, 'ALPHA', [12, 12]);
    const approved = [];
    for (let i = 0; i < 4; i++) approved.push(await approvedStockScrap(w, rows[i % 2]!, 2));
    const submissions = Array.from({ length: 8 }, (_, i) =>
      t.request('POST', '/api/v1/scrap/request', {
        token: w.op.token,
        body: { reason: `并发 ${i}`, items: [{ source_table: 'stock_buy', stock_id: rows[i % 2]!.id, scrap_qty: 1 }], approver_ids: [w.mgr.id] },
      }),
    );
    // per row 12: 4 reserved by the approved scraps, 4 by the new ones, and up to all 4 outbound units — everything fits
    const outbound = Array.from({ length: 4 }, (_, i) =>
      t.request('POST', '/api/v1/outbound/request', { token: w.sales.token, body: { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 1 }], remark: `并发 ${i}` } }),
    );
    const executions = approved.map((request, i) =>
      execute(w, request.id, { scans: [{ barcode: rows[i % 2]!.sku, quantity: 2 }] }, users[i]!),
    );
    const outcomes = (await Promise.all([...submissions, ...outbound, ...executions])).map(outcome);
    expect(outcomes.filter((o) => o !== 'OK'), outcomes.join()).toEqual([]);
    const [left] = await queryRows<{ stock: string }>(t, sql`select sum(stock_quantity)::text as stock from stock_rows where base_id = ${material.id}`);
    expect(Number(left!.stock)).toBe(16);
    await ledgerCheck(t);
  });

  it('a holder returning a borrowed line while its scrap executes: one of them wins, the books stay right', async () => {
    for (let round = 0; round < 5; round++) {
      const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
      const borrow = await approvedBorrow(w, [{ base_id: material.id, quantity: 4 }]);
      const slip = await dispatchOk(t, w.mgr.token, { request_id: borrow.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity: 4 }] });
      const line = slip.lines[0]!;
      const submitted = await t.request('POST', '/api/v1/borrow/scrap-request', { token: w.sales.token, body: { borrow_ids: [line.id], reason: `竞争 ${round}`, approver_ids: [w.mgr.id] } });
      const request = await approveOk(w, (submitted.json() as { id: number }).id);
      const [scrap, giveBack] = await Promise.all([
        execute(w, request.id),
        t.request('POST', `/api/v1/borrow/${line.id}/return`, { token: w.sales.token, body: { quantity: 4 } }),
      ]);
      const outcomes = [outcome(scrap), outcome(giveBack)];
      expect(outcomes.filter((o) => o === 'OK'), outcomes.join()).toHaveLength(1);
      const state = await rowState(t, rows[0]!.id);
      expect(state).toEqual(scrap.statusCode < 300 ? { stock: 6, available: 6, status: '在库' } : { stock: 10, available: 10, status: '在库' });
      await borrowLedgerCheck(t);
    }
  });
});
