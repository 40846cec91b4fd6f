import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createMaterial, holdQuantityDirectly, queryRows, useTestApp } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { call, finish, rowsAt, scan, startSession, stocktakeCast, uniqueZone, type StocktakeCast } from './stocktake-fixtures.js';

let t: TestInventory;
let w: StocktakeCast;
useTestApp(stocktakeCast, (built) => ({ t, w } = built));

const book = async (id: number) =>
  (await queryRows<{ stock: string; available: string; location: string }>(
    t,
    sql`select stock_quantity::text as stock, available_quantity::text as available, warehouse_location as location from stock_rows where id = ${id}`,
  ))[0]!;

async function eventually<T>(read: () => Promise<T>, done: (value: T) => boolean): Promise<T> {
  for (let i = 0; i < 100; i++) {
    const value = await read();
    if (done(value)) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return read();
}

interface ReportRow {
  uuid: string;
  book_qty: number | null;
  book_qty_at_count: number | null;
  counted_qty: number;
  diff_qty: number | null;
  book_moved: boolean;
  moved_reason: string | null;
  adjusted_at: string | null;
}

describe('counts that know the book moved, and /adjust', () => {
  it('flags a count whose row moved afterwards, applies only what can be applied, and lists every skip with its reason', async () => {
    const zone = uniqueZone('ADJ');
    const material = await createMaterial(t, w.mgr.token, { name: '调整物料', red_threshold: 3 });
    const [a, b, c, d, e, f, g] = await rowsAt(t, w.mgr.token, material, [
      [`${zone}/01`, 10], // counted 8: applied (down)
      [`${zone}/02`, 5], // counted 7: applied (up)
      [`${zone}/03`, 6], // counted 6: no difference
      [`${zone}/04`, 4], // 3 held, counted 0: available cannot absorb
      [`${zone}/05`, 3], // counted 3, then edited to 9: moved after count
      [`${zone}/06`, 2], // not counted: generated 0
      [`${zone}/07`, 5], // counted 4, then moved to another location: moved after count
    ]);
    await holdQuantityDirectly(t, d!.id, 3);
    const session = await startSession(t, w.mgr.token, { mode: 'blind', scope_type: 'active', scope_config: { locations: [zone] } });
    const id = session.session_id;
    // a movement before the count needs no recount
    await call(t, 'PUT', `/inbound/stock/${b!.id}`, w.mgr.token, { stock_quantity: 5 });
    for (const [row, counted] of [[a, 8], [b, 7], [c, 6], [d, 0], [e, 3], [g, 4]] as const) await scan(t, w.counter.token, id, row!.sku, counted);
    await call(t, 'PUT', `/inbound/stock/${e!.id}`, w.mgr.token, { stock_quantity: 9 });
    const moved = await call(t, 'POST', `/stock/${g!.id}/move`, w.mgr.token, { to_location: `${zone}/99` });
    expect(moved.statusCode).toBe(200);

    // active blind: the flag shows, the book does not; adjusting is refused
    const merged = await call(t, 'GET', `/draft/merged-list?session_id=${id}&pageSize=200`, w.counter.token);
    const flags = Object.fromEntries((merged.json().list as Array<{ sku: string; book_moved: boolean }>).map((row) => [row.sku, row.book_moved]));
    expect(flags).toEqual({ [a!.sku]: false, [b!.sku]: false, [c!.sku]: false, [d!.sku]: false, [e!.sku]: true, [f!.sku]: false, [g!.sku]: true });
    const early = await call(t, 'POST', '/adjust', w.mgr.token, { session_id: id });
    expect(early.statusCode).toBe(400);
    expect(early.json().code).toBe('STATUS_NOT_ALLOWED');

    await finish(t, w.mgr.token, id);
    const report = (await call(t, 'GET', `/variance-report?session_id=${id}&limit=200`, w.mgr.token)).json();
    expect(report).toMatchObject({ session_id: id, mode: 'blind', status: 'finished', book_hidden: false, total: 7 });
    const byUuid = Object.fromEntries((report.items as ReportRow[]).map((row) => [row.uuid, row]));
    expect(byUuid[e!.sku]).toMatchObject({ book_qty: 9, book_qty_at_count: 3, counted_qty: 3, diff_qty: -6, book_moved: true, moved_reason: 'quantity_changed' });
    expect(byUuid[g!.sku]).toMatchObject({ book_qty: 5, counted_qty: 4, book_moved: true, moved_reason: 'location_changed' });
    expect(byUuid[a!.sku]).toMatchObject({ book_qty: 10, counted_qty: 8, diff_qty: -2, book_moved: false, moved_reason: null });
    const onlyDiff = (await call(t, 'GET', `/variance-report?session_id=${id}&only_diff=true&limit=200`, w.mgr.token)).json();
    expect((onlyDiff.items as ReportRow[]).map((row) => row.uuid).sort()).toEqual([a, b, d, e, f, g].map((row) => row!.sku).sort());

    // named items only
    const named = (await call(t, 'POST', '/adjust', w.mgr.token, { session_id: id, uuids: [a!.sku, c!.sku, 'NOPE-1'] })).json();
    expect(named.applied).toEqual([{ uuid: a!.sku, stock_id: a!.id, before: 10, after: 8, difference: -2, forced: false }]);
    expect(named.skipped.map((s: { uuid: string; reason: string }) => [s.uuid, s.reason])).toEqual([
      ['NOPE-1', 'not_counted'],
      [c!.sku, 'no_difference'],
    ]);
    expect(await book(b!.id)).toMatchObject({ stock: '5' });

    // all differing items
    const all = (await call(t, 'POST', '/adjust', w.mgr.token, { session_id: id })).json();
    expect(all.applied.map((x: { uuid: string; after: number }) => [x.uuid, x.after])).toEqual([
      [b!.sku, 7],
      [f!.sku, 0],
    ]);
    const reasons = Object.fromEntries(all.skipped.map((s: { uuid: string; reason: string; msg: string }) => [s.uuid, s.reason]));
    expect(reasons).toEqual({ [d!.sku]: 'available_short', [e!.sku]: 'moved_after_count', [g!.sku]: 'moved_after_count' });
    expect(all.skipped.find((s: { uuid: string }) => s.uuid === d!.sku).msg).toContain('3');
    expect(await book(a!.id)).toEqual({ stock: '8', available: '8', location: `${zone}/01` });
    expect(await book(b!.id)).toEqual({ stock: '7', available: '7', location: `${zone}/02` });
    expect(await book(d!.id)).toEqual({ stock: '4', available: '1', location: `${zone}/04` });
    expect(await book(e!.id)).toMatchObject({ stock: '9' });

    // force applies a moved count
    const forced = (await call(t, 'POST', '/adjust', w.mgr.token, { session_id: id, uuids: [e!.sku], force: true })).json();
    expect(forced.applied).toEqual([{ uuid: e!.sku, stock_id: e!.id, before: 9, after: 3, difference: -6, forced: true }]);
    expect(await book(e!.id)).toMatchObject({ stock: '3', available: '3' });

    // applied counts are marked, no longer flagged, and a repeat changes nothing
    const after = Object.fromEntries(
      ((await call(t, 'GET', `/variance-report?session_id=${id}&limit=200`, w.mgr.token)).json().items as ReportRow[]).map((row) => [row.uuid, row]),
    );
    expect(after[a!.sku]).toMatchObject({ book_qty: 8, diff_qty: 0, book_moved: false });
    expect(after[a!.sku]!.adjusted_at).not.toBeNull();
    expect(after[e!.sku]).toMatchObject({ book_moved: false });
    const repeat = (await call(t, 'POST', '/adjust', w.mgr.token, { session_id: id })).json();
    expect(repeat.applied).toEqual([]);

    // the adjustments' own audit entries, next to the stock rows' entries
    const records = await queryRows<{ module: string; username: string; target_name: string; forced: boolean }>(
      t,
      sql`select a.module, a.username, a.target_name, (a.details->'created'->>'forced')::boolean as forced
            from audit_logs a where a.table_name = 'stocktake_adjustments' and a.target_name in (${a!.sku}, ${e!.sku}) order by a.id`,
    );
    expect(records).toEqual([
      { module: '库存盘点', username: w.mgr.username, target_name: a!.sku, forced: false },
      { module: '库存盘点', username: w.mgr.username, target_name: e!.sku, forced: true },
    ]);
    const stockAudit = await queryRows<{ request_url: string }>(
      t,
      sql`select request_url from audit_logs where table_name = 'stock_rows' and target_id = ${String(a!.id)} and action = 'UPDATE' order by id desc limit 1`,
    );
    expect(stockAudit[0]!.request_url).toBe('/api/v1/adjust');
  });

  it('runs the low-stock check after an adjustment lowers stock', async () => {
    const zone = uniqueZone('LOW');
    const material = await createMaterial(t, w.mgr.token, { name: '低库存盘点物料', red_threshold: 3, yellow_threshold: 5 });
    const [row] = await rowsAt(t, w.mgr.token, material, [[zone, 10]]);
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: [zone] } });
    await scan(t, w.counter.token, session.session_id, row!.sku, 2);
    await finish(t, w.mgr.token, session.session_id);
    await call(t, 'POST', '/adjust', w.mgr.token, { session_id: session.session_id });
    const level = await eventually(
      async () => (await queryRows<{ level: string | null }>(t, sql`select level from material_stock_alerts where base_id = ${material.id}`))[0]?.level ?? null,
      (value) => value === 'red',
    );
    expect(level).toBe('red');
  });

  it('bad input is 400 and changes nothing; another company`s session is 404; needs the operation code', async () => {
    const session = await startSession(t, w.mgr.token, {});
    await finish(t, w.mgr.token, session.session_id);
    for (const body of [{}, { session_id: 'x' }, { session_id: session.session_id, uuids: 'a' }, { session_id: session.session_id, force: 'yes' }]) {
      expect((await call(t, 'POST', '/adjust', w.mgr.token, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await call(t, 'POST', '/adjust', w.betaMgr.token, { session_id: session.session_id })).statusCode).toBe(404);
    expect((await call(t, 'POST', '/adjust', w.sales.token, { session_id: session.session_id })).statusCode).toBe(403);
    expect((await call(t, 'GET', `/variance-report?session_id=${session.session_id}`, w.sales.token)).statusCode).toBe(403);
  });
});
