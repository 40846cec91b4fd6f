import { describe, expect, it } from 'vitest';
import type { TestInventory } from './helpers.js';
import { approvedBorrow, dispatchOk, useBorrowWorld, type BorrowWorld } from './borrow-fixtures.js';
import { approvedRequest, materialWithStock } from './outbound-fixtures.js';
import { roundTripsOf } from './round-trips.js';

let t: TestInventory;
let w: BorrowWorld;

// The borrow cast can also apply for, approve and execute outbound requests; the ledger check covers both flows.
useBorrowWorld((built) => ({ t, w } = built), { checkLedger: true });

type Items = Array<{ base_id: number; quantity: number }>;
type Scans = Array<{ barcode: string; quantity: number }>;

/**
 * `lineCount` materials with one 在库 row each, an approved request for 2 of each, and the execution
 * scanning every row (through `execute`), ready to be counted.
 */
async function executionOf(lineCount: number, approved: (items: Items) => Promise<{ id: number }>, execute: (id: number, lines: Scans) => Promise<unknown>) {
  const stock = [];
  for (let i = 0; i < lineCount; i++) stock.push(await materialWithStock(t, 'ALPHA', [10]));
  const request = await approved(stock.map(({ material }) => ({ base_id: material.id, quantity: 2 })));
  const lines = stock.map(({ rows }) => ({ barcode: rows[0]!.sku, quantity: 2 }));
  return () => execute(request.id, lines);
}

const outbound = (lineCount: number) =>
  executionOf(
    lineCount,
    (items) => approvedRequest(w, items),
    async (id, lines) => {
      const response = await t.request('POST', '/api/v1/outbound', { token: w.op.token, body: { request_id: id, consumer_name: '张三', lines } });
      expect(response.statusCode, response.body).toBe(201);
    },
  );

const borrowDispatch = (lineCount: number) =>
  executionOf(
    lineCount,
    (items) => approvedBorrow(w, items),
    (id, lines) => dispatchOk(t, w.mgr.token, { request_id: id, borrower_id: w.sales2.id, lines }),
  );

const touchesStock = (text: string) => /update\s+"?stock_rows"?/i.test(text);

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: round trips of an execution by scan', () => {
  it.each([
    ['outbound execution', outbound],
    ['borrow dispatch', borrowDispatch],
  ])('%s: do not grow with the number of scanned lines, one release and one take for the whole request', async (name, prepared) => {
    const one = await roundTripsOf(await prepared(1));
    const three = await roundTripsOf(await prepared(3));
    console.info(`${name} round trips: 1 line ${one.length}, 3 lines ${three.length}\n${three.join('\n---\n')}`);
    expect(three.filter(touchesStock)).toHaveLength(2);
    expect(three).toHaveLength(one.length);
  });
});
