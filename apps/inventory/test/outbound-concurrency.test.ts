import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { ledgerCheck } from './ledger.js';
import { approvedRequest, materialWithStock, rowState, storedRequest, submit, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built));

/** Fires all submissions at once; each body differs (remark) so the idempotency lock never joins two. */
function submitAll(bodies: Array<{ items: Array<{ base_id: number; quantity: number }> }>, tokens: string[]) {
  return Promise.all(
    bodies.map((body, i) =>
      submit(t, tokens[i % tokens.length]!, { outbound_type: 'USE', remark: `并发 ${i}`, ...body }),
    ),
  );
}

const codeOf = (response: { statusCode: number; json(): { code?: string } }) =>
  response.statusCode === 201 ? 'CREATED' : `${response.statusCode} ${response.json().code}`;

function tally(codes: string[]) {
  return codes.reduce<Record<string, number>>((counts, code) => ({ ...counts, [code]: (counts[code] ?? 0) + 1 }), {});
}

describe('check-then-act races (every engine)', () => {
  it('50 concurrent reservations of 1 against an available quantity of 10: exactly 10 win', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const bodies = Array.from({ length: 50 }, () => ({ items: [{ base_id: material.id, quantity: 1 }] }));
    const responses = await submitAll(bodies, [w.sales.token, w.sales2.token]);
    expect(tally(responses.map(codeOf))).toEqual({ CREATED: 10, '400 STOCK_SHORTAGE': 40 });
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 10, available: 0 });
    await ledgerCheck(t);
  });

  it('execution, withdrawal and closing of one request at once: exactly one wins', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [40]);
    for (let round = 0; round < 4; round++) {
      const request = await approvedRequest(w, [{ base_id: material.id, quantity: 2 }]);
      const responses = await Promise.all([
        t.request('POST', '/api/v1/outbound', {
          token: w.op.token,
          body: { request_id: request.id, consumer_name: `r${round}`, lines: [{ barcode: rows[0]!.sku, quantity: 2 }] },
        }),
        t.request('POST', `/api/v1/outbound/request/${request.id}/withdraw`, { token: w.sales.token }),
        t.request('POST', `/api/v1/outbound/request/${request.id}/close`, { token: w.mgr.token }),
      ]);
      const winners = responses.filter((response) => response.statusCode < 300);
      expect(winners, responses.map((r) => r.body).join('\n')).toHaveLength(1);
      for (const loser of responses.filter((response) => response.statusCode >= 300)) {
        expect(loser.statusCode).toBe(400);
        expect(loser.json().code).toBe('STATUS_NOT_ALLOWED');
      }
      expect([3, 4]).toContain((await storedRequest(t, request.id)).status);
      await ledgerCheck(t);
    }
  });
});

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: truly simultaneous transactions', () => {
  it('>= 50 simultaneous submissions competing for the same rows never reserve more than exists', async () => {
    const first = await materialWithStock(t, 'ALPHA', [7, 5, 4]);
    const second = await materialWithStock(t, 'ALPHA', [3, 6]);
    const quantities = [1, 2, 3, 1, 2];
    const bodies = Array.from({ length: 60 }, (_, i) => {
      const a = { base_id: first.material.id, quantity: quantities[i % quantities.length]! };
      const b = { base_id: second.material.id, quantity: quantities[(i + 2) % quantities.length]! };
      // A third of the requests name both materials, in both orders: locking must still never deadlock.
      if (i % 3 === 0) return { items: [a, b] };
      if (i % 3 === 1) return { items: [b, a] };
      return { items: [a] };
    });
    const tokens = [w.sales.token, w.sales2.token, w.mgr.token, w.op.token];
    const responses = await submitAll(bodies, tokens);

    const codes = responses.map(codeOf);
    expect(codes.every((code) => ['CREATED', '400 STOCK_SHORTAGE'].includes(code)), JSON.stringify(tally(codes))).toBe(true);
    expect(codes.filter((code) => code === 'CREATED').length).toBeGreaterThan(0);

    const reservedTotals = new Map<number, number>();
    for (const [i, response] of responses.entries()) {
      if (response.statusCode !== 201) continue;
      for (const item of bodies[i]!.items) reservedTotals.set(item.base_id, (reservedTotals.get(item.base_id) ?? 0) + item.quantity);
      const lines = response.json().items as Array<{ base_id: number; quantity: number }>;
      expect(lines.reduce((sum, line) => sum + line.quantity, 0)).toBe(bodies[i]!.items.reduce((sum, item) => sum + item.quantity, 0));
    }
    expect(reservedTotals.get(first.material.id) ?? 0).toBeLessThanOrEqual(16);
    expect(reservedTotals.get(second.material.id) ?? 0).toBeLessThanOrEqual(9);

    const [stock] = await queryRows<{ available: string; stock: string }>(
      t,
      sql`select sum(available_quantity)::text as available, sum(stock_quantity)::text as stock from stock_rows
           where base_id = ${first.material.id}`,
    );
    expect(Number(stock!.stock) - Number(stock!.available)).toBe(reservedTotals.get(first.material.id) ?? 0);
    await ledgerCheck(t);
  });

  it('multi-line executions over the same rows, scanned in any order, beside submissions and withdrawals never deadlock', async () => {
    const stock = [await materialWithStock(t, 'ALPHA', [40, 40]), await materialWithStock(t, 'ALPHA', [40, 40]), await materialWithStock(t, 'ALPHA', [40, 40])];
    const items = stock.map(({ material }) => ({ base_id: material.id, quantity: 2 }));
    const toExecute = [];
    const toWithdraw = [];
    for (let i = 0; i < 8; i++) toExecute.push(await approvedRequest(w, items));
    for (let i = 0; i < 4; i++) toWithdraw.push(await approvedRequest(w, items));
    // Every execution takes 1 of each row (so stand-ins for half of its allocation), barcodes in varying orders.
    const scans = stock.flatMap(({ rows }) => rows.map((row) => ({ barcode: row.sku, quantity: 1 })));
    const orderOf = (i: number) => (i % 2 === 0 ? scans : [...scans].reverse()).map((_, k, all) => all[(k + i) % all.length]!);

    const responses = await Promise.all([
      ...toExecute.map((request, i) =>
        t.request('POST', '/api/v1/outbound', { token: w.op.token, body: { request_id: request.id, consumer_name: `m${i}`, lines: orderOf(i) } }),
      ),
      ...toWithdraw.map((request) => t.request('POST', `/api/v1/outbound/request/${request.id}/withdraw`, { token: w.sales.token })),
      ...Array.from({ length: 8 }, (_, i) => submit(t, w.sales2.token, { outbound_type: 'USE', remark: `并发执行 ${i}`, items: i % 2 ? [...items].reverse() : items })),
    ]);

    const outcomes = responses.map((response) => (response.statusCode < 300 ? 'OK' : codeOf(response)));
    expect(tally(outcomes), responses.filter((r) => r.statusCode >= 300).map((r) => r.body).join('\n')).toEqual({ OK: 20 });
    for (const { rows } of stock) {
      for (const row of rows) expect((await rowState(t, row.id)).stock).toBe(40 - toExecute.length);
    }
    await ledgerCheck(t);
  });

  it('repeated three-way races on several requests leave exactly one winner each', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [100]);
    const requests = [];
    for (let i = 0; i < 6; i++) requests.push(await approvedRequest(w, [{ base_id: material.id, quantity: 3 }]));
    const responses = await Promise.all(
      requests.flatMap((request, i) => [
        t.request('POST', '/api/v1/outbound', {
          token: w.op.token,
          body: { request_id: request.id, consumer_name: `c${i}`, lines: [{ barcode: rows[0]!.sku, quantity: 3 }] },
        }),
        t.request('POST', `/api/v1/outbound/request/${request.id}/withdraw`, { token: w.sales.token }),
        t.request('POST', `/api/v1/outbound/request/${request.id}/close`, { token: w.mgr.token }),
      ]),
    );
    for (let i = 0; i < requests.length; i++) {
      const three = responses.slice(i * 3, i * 3 + 3);
      expect(three.filter((response) => response.statusCode < 300)).toHaveLength(1);
      expect(three.filter((response) => response.statusCode >= 300).map((r) => r.json().code)).toEqual(['STATUS_NOT_ALLOWED', 'STATUS_NOT_ALLOWED']);
    }
    await ledgerCheck(t);
  });
});
