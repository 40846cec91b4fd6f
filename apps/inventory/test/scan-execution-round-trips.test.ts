import pg from 'pg';
import { describe, expect, it } from 'vitest';
import type { TestInventory } from './helpers.js';
import { approvedRequest, materialWithStock, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

/**
 * Every query node-postgres sends while `call` runs (BEGIN, COMMIT and SAVEPOINT included): one entry
 * per round trip. Only the PostgreSQL driver is watched, hence the skip on PGlite.
 */
async function roundTripsOf(call: () => Promise<unknown>): Promise<string[]> {
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = client.query;
  const sent: string[] = [];
  client.query = function (this: unknown, ...args: unknown[]) {
    const [query] = args;
    sent.push(typeof query === 'string' ? query : String((query as { text?: string }).text ?? query));
    return original.apply(this, args);
  };
  try {
    await call();
  } finally {
    client.query = original;
  }
  return sent;
}

/** An approved request for `lines` materials, one 在库 row each, and the execution scanning every row. */
async function executionOf(lineCount: number) {
  const stock = [];
  for (let i = 0; i < lineCount; i++) stock.push(await materialWithStock(t, 'ALPHA', [10]));
  const request = await approvedRequest(w, stock.map(({ material }) => ({ base_id: material.id, quantity: 2 })));
  const lines = stock.map(({ rows }) => ({ barcode: rows[0]!.sku, quantity: 2 }));
  return () =>
    t.request('POST', '/api/v1/outbound', { token: w.op.token, body: { request_id: request.id, consumer_name: '张三', lines } }).then((response) => {
      expect(response.statusCode, response.body).toBe(201);
    });
}

const touchesStock = (text: string) => /update\s+"?stock_rows"?/i.test(text);

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: round trips of an execution by scan', () => {
  it('do not grow with the number of scanned lines: one release and one take for the whole request', async () => {
    const one = await roundTripsOf(await executionOf(1));
    const three = await roundTripsOf(await executionOf(3));
    console.info(`outbound execution round trips: 1 line ${one.length}, 3 lines ${three.length}\n${three.join('\n---\n')}`);
    expect(three.filter(touchesStock)).toHaveLength(2);
    expect(three).toHaveLength(one.length);
  });
});
