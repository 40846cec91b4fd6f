import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows, useTestApp } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';

let t: TestInventory;
let keeper: TestUser;
let other: TestUser;

useTestApp(
  async (app) => ({ keeper: await app.user('OUTBOUND', 'ALPHA'), other: await app.user('OUTBOUND', 'ALPHA') }),
  (built) => ({ t, w: { keeper, other } } = built),
);

const BASE = '/api/v1/scan-draft';
const line = (sku: string, quantity: number) => ({ sku, name: '螺丝', specification: 'M3', location: 'A/1', stock_id: 7, quantity });
const draftRows = async () => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from scan_drafts`))[0]!.n;
const get = (user: TestUser, query: string) => t.request('GET', `${BASE}?${query}`, { token: user.token });
const save = (user: TestUser, body: Record<string, unknown>) => t.request('POST', BASE, { token: user.token, body });

describe('scan drafts', () => {
  it('answer null when there is none, and keep one whole list per user, biz_type and request', async () => {
    const none = await get(keeper, 'biz_type=outbound&request_id=11');
    expect(none.statusCode).toBe(200);
    expect(none.json()).toBeNull();

    expect((await save(keeper, { biz_type: 'outbound', request_id: 11, items: [line('A', 1), line('B', 2)] })).statusCode).toBe(200);
    const replaced = await save(keeper, { biz_type: 'outbound', request_id: 11, items: [line('C', 3)] });
    expect(replaced.json()).toMatchObject({ saved: true, deleted: false, draft: { request_id: 11, biz_type: 'outbound', user_id: keeper.id } });

    const read = (await get(keeper, 'biz_type=outbound&request_id=11')).json();
    expect(read.items).toEqual([line('C', 3)]);
    expect(await get(other, 'biz_type=outbound&request_id=11').then((r) => r.json())).toBeNull();
    expect(await get(keeper, 'biz_type=borrow&request_id=11').then((r) => r.json())).toBeNull();
  });

  it('answer the draft with items_json, the whole-list snapshot spec 2.11 names (items as well)', async () => {
    const lines = [line('J1', 1.5), line('J2', 2)];
    const saved = await save(keeper, { biz_type: 'borrow', request_id: 21, items: lines });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().draft).toMatchObject({ user_id: keeper.id, biz_type: 'borrow', request_id: 21, items_json: lines, items: lines });
    const read = (await get(keeper, 'biz_type=borrow&request_id=21')).json();
    expect(read).toMatchObject({ user_id: keeper.id, biz_type: 'borrow', request_id: 21, items_json: lines, items: lines });
  });

  it('hold a line at any location a stock row may have (255 characters)', async () => {
    const deep = { ...line('D', 1), location: 'L/'.repeat(127) + 'Z' };
    expect(deep.location).toHaveLength(255);
    const saved = await save(keeper, { biz_type: 'outbound', request_id: 12, items: [deep] });
    expect(saved.statusCode, saved.body).toBe(200);
    expect((await get(keeper, 'biz_type=outbound&request_id=12')).json().items).toEqual([deep]);
  });

  it('keep every other display field of a line as sent (a snapshot), refusing only objects, arrays and long text', async () => {
    const shown = { ...line('E', 1), scanned_qty: 2, material_code: 'M-9', checked: true, note: null };
    const saved = await save(keeper, { biz_type: 'outbound', request_id: 13, items: [shown] });
    expect(saved.statusCode, saved.body).toBe(200);
    expect(saved.json().draft.items).toEqual([shown]);
    expect((await get(keeper, 'biz_type=outbound&request_id=13')).json().items).toEqual([shown]);
    for (const odd of [{ nested: { a: 1 } }, { list: [1] }, { note: 'x'.repeat(501) }]) {
      const refused = await save(keeper, { biz_type: 'outbound', request_id: 13, items: [{ ...line('E', 1), ...odd }] });
      expect(refused.statusCode, JSON.stringify(odd)).toBe(400);
    }
    expect((await get(keeper, 'biz_type=outbound&request_id=13')).json().items).toEqual([shown]);
  });

  it('take the owner from the token, never from the body', async () => {
    await save(other, { biz_type: 'borrow', request_id: 5, user_id: keeper.id, items: [line('X', 1)] });
    expect((await get(keeper, 'biz_type=borrow&request_id=5')).json()).toBeNull();
    expect((await get(other, 'biz_type=borrow&request_id=5')).json().user_id).toBe(other.id);
  });

  it('delete on an empty list and on DELETE (query or body)', async () => {
    await save(keeper, { biz_type: 'scrap', request_id: 3, items: [line('S', 1)] });
    const emptied = await save(keeper, { biz_type: 'scrap', request_id: 3, items: [] });
    expect(emptied.json()).toEqual({ saved: false, deleted: true, draft: null });
    expect((await get(keeper, 'biz_type=scrap&request_id=3')).json()).toBeNull();

    await save(keeper, { biz_type: 'stocktake', request_id: 'a1b2-c3', items: [line('T', 1)] });
    const byQuery = await t.request('DELETE', `${BASE}?biz_type=stocktake&request_id=a1b2-c3`, { token: keeper.token });
    expect(byQuery.json()).toEqual({ deleted: true });
    await save(keeper, { biz_type: 'stocktake', request_id: 'a1b2-c3', items: [line('T', 1)] });
    const byBody = await t.request('DELETE', BASE, { token: keeper.token, body: { biz_type: 'stocktake', request_id: 'a1b2-c3' } });
    expect(byBody.json()).toEqual({ deleted: true });
    expect((await t.request('DELETE', BASE, { token: keeper.token })).statusCode).toBe(400);
  });

  it('refuse non-numeric quantities, unknown biz types and missing keys, writing nothing', async () => {
    const before = await draftRows();
    for (const body of [
      { biz_type: 'outbound', request_id: 20, items: [{ sku: 'A', quantity: 'abc' }] },
      { biz_type: 'outbound', request_id: 20, items: [{ sku: 'A', quantity: -1 }] },
      { biz_type: 'gift', request_id: 20, items: [line('A', 1)] },
      { biz_type: 'outbound', items: [line('A', 1)] },
      { biz_type: 'outbound', request_id: 20 },
      // a key GET and DELETE could never name again (stored as "1e+21")
      { biz_type: 'outbound', request_id: 1e21, items: [line('A', 1)] },
    ]) {
      const response = await save(keeper, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect(await draftRows()).toBe(before);
    expect((await t.request('GET', BASE, { token: keeper.token })).statusCode).toBe(400);
    expect((await t.request('GET', `${BASE}?biz_type=outbound&request_id=1`)).statusCode).toBe(401);
  });

  it('DELETE refuses a missing or bad key naming the part at fault (contract §2), deleting nothing', async () => {
    await save(keeper, { biz_type: 'outbound', request_id: 31, items: [line('K', 1)] });
    const before = await draftRows();
    for (const [sent, field] of [
      [{ request_id: 31 }, 'biz_type'],
      [{ biz_type: 'gift', request_id: 31 }, 'biz_type'],
      [{ biz_type: 'outbound' }, 'request_id'],
      [{ biz_type: 'outbound', request_id: { id: 31 } }, 'request_id'],
      [{ biz_type: 'outbound', request_id: '31 OR 1=1' }, 'request_id'],
    ] as const) {
      const response = await t.request('DELETE', BASE, { token: keeper.token, body: sent });
      expect(response.statusCode, JSON.stringify(sent)).toBe(400);
      expect(response.json(), JSON.stringify(sent)).toMatchObject({ code: 'VALIDATION_FAILED', field });
      expect(response.json().msg, JSON.stringify(sent)).toContain(field);
    }
    expect(await draftRows()).toBe(before);
    expect((await get(keeper, 'biz_type=outbound&request_id=31')).json()).not.toBeNull();
  });

  it('show the caller’s progress per request, newest first', async () => {
    const fresh = await t.user('OUTBOUND', 'ALPHA');
    await save(fresh, { biz_type: 'outbound', request_id: 40, items: [{ ...line('A', 2), requested_quantity: 5 }, { ...line('B', 1.5), requested_quantity: 1.5 }] });
    await save(fresh, { biz_type: 'borrow', request_id: 41, items: [line('C', 1)] });
    const overview = await t.request('GET', `${BASE}/overview`, { token: fresh.token });
    expect(overview.statusCode).toBe(200);
    expect(overview.json()).toMatchObject([
      { biz_type: 'borrow', request_id: 41, lines: 1, scanned_quantity: 1, requested_quantity: null },
      { biz_type: 'outbound', request_id: 40, lines: 2, scanned_quantity: 3.5, requested_quantity: 6.5 },
    ]);
  });
});
