import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { idempotencyKeyFor, IDEMPOTENCY_TTL_MS } from '@wms/platform';
import { createMaterial, queryRows, stockIn, type MaterialJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { approvedRequest, rowState, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;
useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

const move = (token: string, id: number, body: Record<string, unknown>, group = '/api/v1/stock') =>
  t.request('POST', `${group}/${id}/move`, { token, body });

async function freshRow(quantity = 10, extra: Record<string, unknown> = {}) {
  const material: MaterialJson = await createMaterial(t, w.mgr.token, { name: '移库物料' });
  const row = await stockIn(t, w.mgr.token, { base_id: material.id, in_quantity: quantity, warehouse_location: 'A/01', batch_number: 'LOT-7', ...extra });
  return { material, row };
}

describe('POST /stock/:id/move', () => {
  it('moves a whole row: same row, new location, recorded with who, when, from, to and quantity', async () => {
    const { row } = await freshRow(6);
    const response = await move(w.inbound.token, row.id, { to_location: ' B / 02 ' });
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body.from_row).toMatchObject({ id: row.id, warehouse_location: 'B/02', stock_quantity: 6 });
    expect(body.to_row.id).toBe(row.id);
    expect(body.move).toMatchObject({
      stock_id: row.id, to_stock_id: row.id, sku: row.sku, to_sku: row.sku, from_location: 'A/01', to_location: 'B/02',
      quantity: 6, whole: true, operator: w.inbound.username, company_name: 'ALPHA',
    });
    expect(Date.parse(body.move.moved_at)).not.toBeNaN();
  });

  it('splits off a part into a new row (same material, batch, kind, status; new sku) at the new location', async () => {
    const { row } = await freshRow(10);
    const response = await move(w.inbound.token, row.id, { to_location: 'C/03', quantity: 2.5 }, '/api/v1/inbound/stock');
    expect(response.statusCode).toBe(200);
    const { from_row: from, to_row: to, move: record } = response.json();
    expect(from).toMatchObject({ id: row.id, stock_quantity: 7.5, available_quantity: 7.5, warehouse_location: 'A/01' });
    expect(to).toMatchObject({
      source_table: 'stock_buy', base_id: row.base_id, batch_number: 'LOT-7', status: '在库', warehouse_location: 'C/03',
      stock_quantity: 2.5, available_quantity: 2.5, in_quantity: 2.5,
    });
    expect(to.id).not.toBe(row.id);
    expect(to.sku).not.toBe(row.sku);
    expect(to.sku).toMatch(/^B\d{8}-[2-9A-HJ-NP-Z]{6}$/);
    expect(record).toMatchObject({ stock_id: row.id, to_stock_id: to.id, to_sku: to.sku, quantity: 2.5, whole: false });
    // a serial-numbered product keeps its serial
    const product = await freshRow(2, { source_table: 'stock_product', batch_number: undefined, serial_number: 'SN-MOVE-1' });
    const split = (await move(w.inbound.token, product.row.id, { to_location: 'D', quantity: 1 })).json();
    expect(split.to_row).toMatchObject({ source_table: 'stock_product', serial_number: 'SN-MOVE-1', batch_number: '' });
  });

  it('never moves reserved quantity: a part only up to available, a whole row only when nothing is held', async () => {
    const { material, row } = await freshRow(10);
    await approvedRequest(w, [{ base_id: material.id, quantity: 4 }]); // reserves 4 of the only row
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 6 });
    const whole = await move(w.inbound.token, row.id, { to_location: 'E' });
    expect(whole.statusCode).toBe(400);
    expect(whole.json()).toMatchObject({ code: 'IN_USE', reserved: 4, available_quantity: 6 });
    const wholeByQuantity = await move(w.inbound.token, row.id, { to_location: 'E', quantity: 10 });
    expect(wholeByQuantity.json().code).toBe('IN_USE');
    const tooMuch = await move(w.inbound.token, row.id, { to_location: 'E', quantity: 6.5 });
    expect(tooMuch.statusCode).toBe(400);
    expect(tooMuch.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', available_quantity: 6 });
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 6 });
    const part = await move(w.inbound.token, row.id, { to_location: 'E', quantity: 6 });
    expect(part.json().from_row).toMatchObject({ stock_quantity: 4, available_quantity: 0 });
    // the ledger identity holds (checked after each test): the reservation stayed on the original row
  });

  it('bad input is 400/404/403 and moves nothing', async () => {
    const { row } = await freshRow(3);
    const cases: Array<[string, number, Record<string, unknown>, number]> = [
      [w.inbound.token, row.id, { to_location: '' }, 400],
      [w.inbound.token, row.id, { to_location: ' / / ' }, 400],
      [w.inbound.token, row.id, { to_location: 'A/01' }, 400],
      [w.inbound.token, row.id, { to_location: 'B', quantity: 0 }, 400],
      [w.inbound.token, row.id, { to_location: 'B', quantity: -1 }, 400],
      [w.inbound.token, row.id, { to_location: 'B', quantity: '1' }, 400],
      [w.inbound.token, row.id, { quantity: 1 }, 400],
      [w.inbound.token, row.id, { to_location: 'B', source_table: 'stock_semi' }, 404],
      [w.inbound.token, 99999999, { to_location: 'B' }, 404],
      [w.betaMgr.token, row.id, { to_location: 'B' }, 404],
      [w.sales.token, row.id, { to_location: 'B' }, 403],
    ];
    for (const [token, id, body, status] of cases) {
      const response = await move(token, id, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.json()).toHaveProperty('code');
    }
    expect(await rowState(t, row.id)).toMatchObject({ stock: 3, available: 3 });
    const [count] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from stock_moves where stock_id = ${row.id}`);
    expect(count!.n).toBe(0);
  });
});

describe('GET /stock/:id/moves and /stock/moves', () => {
  it('lists a row`s moves (out of it and the split that made it) and a location`s moves, newest first, company-isolated', async () => {
    const { row } = await freshRow(10, { warehouse_location: 'LOC/A' });
    const first = (await move(w.inbound.token, row.id, { to_location: 'LOC/B', quantity: 3 })).json();
    await move(w.inbound.token, row.id, { to_location: 'LOC/C' });
    const ofRow = (await t.request('GET', `/api/v1/stock/${row.id}/moves`, { token: w.sales.token })).json();
    expect(ofRow).toMatchObject({ total: 2, page: 1 });
    expect(ofRow.items.map((m: { to_location: string }) => m.to_location)).toEqual(['LOC/C', 'LOC/B']);
    const ofPart = (await t.request('GET', `/api/v1/inbound/stock/${first.to_row.id}/moves`, { token: w.sales.token })).json();
    expect(ofPart.items.map((m: { id: number }) => m.id)).toEqual([first.move.id]);
    const atB = (await t.request('GET', '/api/v1/stock/moves?location=LOC/B', { token: w.sales.token })).json();
    expect(atB.items.map((m: { id: number }) => m.id)).toEqual([first.move.id]);
    const atLoc = (await t.request('GET', '/api/v1/stock/moves?location=LOC&limit=1', { token: w.sales.token })).json();
    expect(atLoc).toMatchObject({ total: 2, limit: 1 });
    expect((await t.request('GET', '/api/v1/stock/moves?location=LOC', { token: w.betaMgr.token })).json().total).toBe(0);
    expect((await t.request('GET', `/api/v1/stock/${row.id}/moves`, { token: w.betaMgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', '/api/v1/stock/99999999/moves', { token: w.sales.token })).statusCode).toBe(404);
    const audit = await queryRows<{ module: string }>(t, sql`select distinct module from audit_logs where table_name = 'stock_moves'`);
    expect(audit).toEqual([{ module: '库存管理' }]);
  });
});

describe('idempotency', () => {
  it('a move while the same call of the same user is running is 409 LOCK_HELD and moves nothing', async () => {
    const { row } = await freshRow(10);
    const body = { to_location: 'X/1', quantity: 1 };
    const key = idempotencyKeyFor(w.inbound.id, 'POST', `/api/v1/stock/${row.id}/move`, body);
    const held = (await t.service.deps.locks.acquire(key, IDEMPOTENCY_TTL_MS)) as { token: string };
    const refused = await move(w.inbound.token, row.id, body);
    expect(refused.statusCode).toBe(409);
    expect(refused.json().code).toBe('LOCK_HELD');
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10 });
    await t.service.deps.locks.release(key, held.token);
    expect((await move(w.inbound.token, row.id, body)).statusCode).toBe(200);
  });
});
