import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows, stockIn, useTestApp } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { call, finish, merged, rowsAt, scan, startSession, stocktakeCast, uniqueZone, type StocktakeCast } from './stocktake-fixtures.js';

let t: TestInventory;
let w: StocktakeCast;
useTestApp(stocktakeCast, (built) => ({ t, w } = built));

const draftsOf = (sessionId: number) =>
  queryRows<{ uuid: string; user_id: string; quantity: string; remark: string | null }>(
    t,
    sql`select uuid, user_id, quantity::text, remark from stocktake_drafts where session_id = ${sessionId} order by id`,
  );

/** A session scoped to a fresh zone, with rows of the given quantities at <zone>/01, <zone>/02, … */
async function zoneSession(quantities: number[], mode: 'open' | 'blind' = 'open') {
  const zone = uniqueZone();
  const rows = await rowsAt(t, w.mgr.token, w.material, quantities.map((q, i): [string, number] => [`${zone}/0${i + 1}`, q]));
  const session = await startSession(t, w.mgr.token, { mode, scope_type: 'active', scope_config: { locations: [zone] } });
  return { zone, rows, sessionId: session.session_id };
}

describe('POST /draft/add', () => {
  it('one row per session and item: a second scan replaces the quantity and records the last operator; remark only when sent', async () => {
    const { rows, sessionId } = await zoneSession([10]);
    const first = await scan(t, w.counter.token, sessionId, rows[0]!.sku, 9, { remark: '箱子破损' });
    expect(first).toMatchObject({ session_id: sessionId, uuid: rows[0]!.sku, stock_id: rows[0]!.id, quantity: 9, user_id: '盘点员乙', remark: '箱子破损' });
    const second = await scan(t, w.counter2.token, sessionId, rows[0]!.sku, 10.5);
    expect(second).toMatchObject({ id: first.id, quantity: 10.5, user_id: '盘点员丙', remark: '箱子破损' });
    expect(Object.keys(second)).not.toContain('book_quantity');
    expect(await draftsOf(sessionId)).toEqual([{ uuid: rows[0]!.sku, user_id: '盘点员丙', quantity: '10.5', remark: '箱子破损' }]);
    await scan(t, w.counter2.token, sessionId, rows[0]!.sku, 10.5, { remark: null });
    expect((await draftsOf(sessionId))[0]!.remark).toBeNull();
  });

  it('exact match first, then a unique partial match; several partial matches are 400 AMBIGUOUS_BARCODE', async () => {
    const zone = uniqueZone();
    const exact = await stockIn(t, w.mgr.token, { base_id: w.material.id, sku: `${zone}-X1`, warehouse_location: zone });
    await stockIn(t, w.mgr.token, { base_id: w.material.id, sku: `${zone}-X10`, warehouse_location: zone });
    await stockIn(t, w.mgr.token, { base_id: w.material.id, sku: `${zone}-X11`, warehouse_location: zone });
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: [zone] } });
    expect((await scan(t, w.counter.token, session.session_id, `${zone}-X1`, 1)).stock_id).toBe(exact.id);
    expect((await scan(t, w.counter.token, session.session_id, `${zone}-x10`.toLowerCase().slice(-5), 2)).uuid).toBe(`${zone}-X10`);
    const ambiguous = await call(t, 'POST', '/draft/add', w.counter.token, { session_id: session.session_id, barcode: `${zone}-X1`.slice(0, -1), quantity: 1 });
    expect(ambiguous.statusCode).toBe(400);
    expect(ambiguous.json().code).toBe('AMBIGUOUS_BARCODE');
  });

  it('another company`s barcode is 403 OTHER_COMPANY naming it; an unknown barcode is 404; nothing is written', async () => {
    const { sessionId } = await zoneSession([1]);
    const betaRow = await stockIn(t, w.betaMgr.token, { base_id: w.betaMaterial.id });
    const other = await call(t, 'POST', '/draft/add', w.counter.token, { session_id: sessionId, barcode: betaRow.sku, quantity: 1 });
    expect(other.statusCode).toBe(403);
    expect(other.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA' });
    expect(other.json().msg).toContain('BETA');
    // also for a cross-domain caller counting into ALPHA's session
    const adminOther = await call(t, 'POST', '/draft/add', w.admin, { session_id: sessionId, barcode: betaRow.sku, quantity: 1 });
    expect(adminOther.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA' });
    const unknown = await call(t, 'POST', '/draft/add', w.counter.token, { session_id: sessionId, barcode: 'NO-SUCH-CODE-42', quantity: 1 });
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json().code).toBe('NOT_FOUND');
    expect(await draftsOf(sessionId)).toEqual([]);
  });

  it('accepts any stock status (contract §8)', async () => {
    const { rows, sessionId } = await zoneSession([2, 3]);
    await call(t, 'POST', `/inbound/stock/${rows[0]!.id}/change-status`, w.mgr.token, { status: '冻结' });
    await call(t, 'POST', `/inbound/stock/${rows[1]!.id}/change-status`, w.mgr.token, { status: '不良品' });
    expect((await scan(t, w.counter.token, sessionId, rows[0]!.sku, 2)).quantity).toBe(2);
    expect((await scan(t, w.counter.token, sessionId, rows[1]!.sku, 3)).quantity).toBe(3);
  });

  it('an item outside the frozen scope is 400 OUTSIDE_SCOPE; a location below a scoped one is inside', async () => {
    const zone = uniqueZone();
    const [inside, below, sibling] = await rowsAt(t, w.mgr.token, w.material, [[`${zone}/A`, 1], [`${zone}/A/3`, 1], [`${zone}/AB`, 1]]);
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: [`${zone}/A`] } });
    await scan(t, w.counter.token, session.session_id, inside!.sku, 1);
    await scan(t, w.counter.token, session.session_id, below!.sku, 1);
    const outside = await call(t, 'POST', '/draft/add', w.counter.token, { session_id: session.session_id, barcode: sibling!.sku, quantity: 1 });
    expect(outside.statusCode).toBe(400);
    expect(outside.json()).toMatchObject({ code: 'OUTSIDE_SCOPE', warehouse_location: `${zone}/AB` });
  });

  it('bad input is 400 and writes nothing; a finished session takes no counts; permission and session checks', async () => {
    const { rows, sessionId } = await zoneSession([4]);
    const bodies = [
      { session_id: sessionId, barcode: rows[0]!.sku, quantity: -1 },
      { session_id: sessionId, barcode: rows[0]!.sku, quantity: '3' },
      { session_id: sessionId, barcode: '', quantity: 1 },
      { session_id: sessionId, barcode: '   ', quantity: 1 },
      { barcode: rows[0]!.sku, quantity: 1 },
      { session_id: sessionId, barcode: rows[0]!.sku },
    ];
    for (const body of bodies) {
      const response = await call(t, 'POST', '/draft/add', w.counter.token, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toHaveProperty('msg');
    }
    expect((await call(t, 'POST', '/draft/add', w.sales.token, { session_id: sessionId, barcode: rows[0]!.sku, quantity: 1 })).statusCode).toBe(403);
    expect((await call(t, 'POST', '/draft/add', w.betaMgr.token, { session_id: sessionId, barcode: rows[0]!.sku, quantity: 1 })).statusCode).toBe(404);
    expect(await draftsOf(sessionId)).toEqual([]);
    // a zero count is a count
    expect((await scan(t, w.counter.token, sessionId, rows[0]!.sku, 0)).quantity).toBe(0);
    await finish(t, w.mgr.token, sessionId);
    const late = await call(t, 'POST', '/draft/add', w.counter.token, { session_id: sessionId, barcode: rows[0]!.sku, quantity: 4 });
    expect(late.statusCode).toBe(400);
    expect(late.json().code).toBe('STATUS_NOT_ALLOWED');
  });
});

describe('GET /draft/merged-list', () => {
  it('open mode: stock and difference; zero-stock rows only when counted; rows outside the scope never', async () => {
    const zone = uniqueZone();
    const [a, b, empty, emptyCounted] = await rowsAt(t, w.mgr.token, w.material, [[`${zone}/01`, 5], [`${zone}/02`, 7], [`${zone}/03`, 1], [`${zone}/04`, 1]]);
    await rowsAt(t, w.mgr.token, w.material, [[`${zone}X/01`, 9]]); // outside: zone prefix but another location
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: [zone] } });
    await t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`update stock_rows set stock_quantity = 0, available_quantity = 0 where id in (${empty!.id}, ${emptyCounted!.id})`),
    );
    await scan(t, w.counter.token, session.session_id, a!.sku, 4);
    await scan(t, w.counter.token, session.session_id, emptyCounted!.sku, 2);
    const page = await merged(t, w.counter.token, session.session_id);
    expect(page).toMatchObject({ total: 3, total_scanned: 2, mode: 'open', page: 1, limit: 20 });
    expect(page.list.map((row) => [row.sku, row.stock_qty, row.counted_qty, row.diff_qty, row.scanned])).toEqual([
      [a!.sku, 5, 4, -1, true],
      [b!.sku, 7, null, null, false],
      [emptyCounted!.sku, 0, 2, 2, true],
    ]);
  });

  it('blind mode answers stock_qty and diff_qty as null, and match/diff filters are 400 while active', async () => {
    const { rows, sessionId } = await zoneSession([5, 6], 'blind');
    await scan(t, w.counter.token, sessionId, rows[0]!.sku, 4);
    const page = await merged(t, w.counter.token, sessionId);
    expect(page.mode).toBe('blind');
    expect(page.list.map((row) => [row.stock_qty, row.diff_qty])).toEqual([[null, null], [null, null]]);
    expect(page.list[0]).toMatchObject({ counted_qty: 4, scanned: true });
    for (const filter of ['match', 'diff']) {
      const refused = await call(t, 'GET', `/draft/merged-list?session_id=${sessionId}&status_filter=${filter}`, w.counter.token);
      expect(refused.statusCode).toBe(400);
    }
    expect((await merged(t, w.counter.token, sessionId, '&status_filter=scanned')).list.map((row) => row.sku)).toEqual([rows[0]!.sku]);
    expect((await merged(t, w.counter.token, sessionId, '&status_filter=unscanned')).list.map((row) => row.sku)).toEqual([rows[1]!.sku]);
    await finish(t, w.mgr.token, sessionId);
    const unlocked = await merged(t, w.counter.token, sessionId);
    expect(unlocked.list.map((row) => [row.stock_qty, row.counted_qty, row.diff_qty])).toEqual([[5, 4, -1], [6, 0, -6]]);
    expect((await merged(t, w.counter.token, sessionId, '&status_filter=diff')).total).toBe(2);
  });

  it('a missing session answers the caller`s rows as blind: no book quantity', async () => {
    const response = await merged(t, w.counter.token, 987654);
    expect(response.mode).toBe('blind');
    expect(response.total).toBeGreaterThan(0);
    expect(response.list.every((row) => row.stock_qty === null && row.diff_qty === null && row.counted_qty === null)).toBe(true);
    expect((await call(t, 'GET', '/draft/merged-list?session_id=987654&status_filter=diff', w.counter.token)).statusCode).toBe(400);
  });

  it('without session_id the session row is missing: the caller`s rows as blind, no counts (spec 4.6 rule 3)', async () => {
    const { rows, sessionId } = await zoneSession([5]); // an open session is active meanwhile
    await scan(t, w.counter.token, sessionId, rows[0]!.sku, 4);
    const response = await call(t, 'GET', `/draft/merged-list?keyword=${rows[0]!.sku}`, w.counter.token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ total: 1, total_scanned: 0, mode: 'blind', page: 1, limit: 20 });
    expect(response.json().list[0]).toMatchObject({ sku: rows[0]!.sku, stock_qty: null, diff_qty: null, counted_qty: null, scanned: false });
    expect((await call(t, 'GET', '/draft/merged-list?status_filter=diff', w.counter.token)).statusCode).toBe(400);
    const beta = await call(t, 'GET', `/draft/merged-list?keyword=${rows[0]!.sku}`, w.betaMgr.token);
    expect(beta.json()).toMatchObject({ total: 0, list: [] });
  });

  it('status filters match/diff/scanned/unscanned, keyword and paging in open mode', async () => {
    const { rows, sessionId } = await zoneSession([1, 2, 3, 4]);
    await scan(t, w.counter.token, sessionId, rows[0]!.sku, 1);
    await scan(t, w.counter.token, sessionId, rows[1]!.sku, 5);
    const skus = async (query: string) => (await merged(t, w.counter.token, sessionId, query)).list.map((row) => row.sku);
    expect(await skus('&status_filter=match')).toEqual([rows[0]!.sku]);
    expect(await skus('&status_filter=diff')).toEqual([rows[1]!.sku]);
    expect(await skus('&status_filter=scanned')).toEqual([rows[0]!.sku, rows[1]!.sku]);
    expect(await skus('&status_filter=unscanned')).toEqual([rows[2]!.sku, rows[3]!.sku]);
    expect(await skus(`&keyword=${rows[3]!.warehouse_location}`)).toEqual([rows[3]!.sku]);
    const page = await merged(t, w.counter.token, sessionId, '&page=2&pageSize=3');
    expect(page).toMatchObject({ total: 4, total_scanned: 2, page: 2, limit: 3 });
    expect(page.list.map((row) => row.sku)).toEqual([rows[3]!.sku]);
    expect((await call(t, 'GET', `/draft/merged-list?session_id=${sessionId}&status_filter=odd`, w.counter.token)).statusCode).toBe(400);
  });
});

describe('GET /stocktake/all-items', () => {
  it('lists the company`s active session items with total and total_scanned', async () => {
    const { rows, sessionId } = await zoneSession([3, 4], 'blind');
    await scan(t, w.counter.token, sessionId, rows[1]!.sku, 4);
    const response = await call(t, 'GET', '/stocktake/all-items?limit=200', w.counter.token);
    expect(response.json()).toMatchObject({ session_id: sessionId, total: 2, total_scanned: 1, mode: 'blind', page: 1, limit: 200 });
    expect(response.json().items.map((item: { sku: string; stock_qty: null }) => [item.sku, item.stock_qty])).toEqual([
      [rows[0]!.sku, null],
      [rows[1]!.sku, null],
    ]);
    expect((await call(t, 'GET', `/stocktake/all-items?session_id=${sessionId}`, w.betaMgr.token)).statusCode).toBe(404);
  });
});

describe('POST /stocktake/update-quantity', () => {
  it('404 asking to scan first when the item has no draft; changes remark only when sent', async () => {
    const { rows, sessionId } = await zoneSession([6, 7]);
    const missing = await call(t, 'POST', '/stocktake/update-quantity', w.counter.token, {
      session_id: sessionId, stock_id: rows[1]!.id, source_table: 'stock_buy', quantity: 7,
    });
    expect(missing.statusCode).toBe(404);
    expect(missing.json().msg).toContain('请先扫码');
    expect(await draftsOf(sessionId)).toEqual([]);

    await scan(t, w.counter.token, sessionId, rows[0]!.sku, 5, { remark: '初盘' });
    const kept = await call(t, 'POST', '/stocktake/update-quantity', w.counter2.token, {
      session_id: sessionId, stock_id: rows[0]!.id, source_table: 'stock_buy', quantity: 6,
    });
    expect(kept.json()).toMatchObject({ quantity: 6, remark: '初盘', user_id: '盘点员丙' });
    const changed = await call(t, 'POST', '/stocktake/update-quantity', w.counter.token, {
      session_id: sessionId, stock_id: rows[0]!.id, source_table: 'stock_buy', quantity: 6, remark: '复盘',
    });
    expect(changed.json()).toMatchObject({ quantity: 6, remark: '复盘' });
    const wrongKind = await call(t, 'POST', '/stocktake/update-quantity', w.counter.token, {
      session_id: sessionId, stock_id: rows[0]!.id, source_table: 'stock_semi', quantity: 1,
    });
    expect(wrongKind.statusCode).toBe(404);
    const bad = await call(t, 'POST', '/stocktake/update-quantity', w.counter.token, { session_id: sessionId, stock_id: rows[0]!.id, quantity: 1 });
    expect(bad.statusCode).toBe(400);
  });
});

describe('POST /stocktake/generate-missing', () => {
  it('writes zero-quantity drafts as system for uncounted rows with stock, closes the session, and cannot run twice', async () => {
    const { rows, sessionId } = await zoneSession([2, 3, 4]);
    await scan(t, w.counter.token, sessionId, rows[1]!.sku, 3);
    const result = await finish(t, w.mgr.token, sessionId);
    expect(result).toMatchObject({ generated: 2, counted: 1, total: 3, status: 'finished' });
    const drafts = await draftsOf(sessionId);
    expect(drafts.filter((draft) => draft.user_id === 'system').map((draft) => [draft.uuid, draft.quantity])).toEqual([
      [rows[0]!.sku, '0'],
      [rows[2]!.sku, '0'],
    ]);
    const again = await call(t, 'POST', '/stocktake/generate-missing', w.mgr.token, { session_id: sessionId });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('STATUS_NOT_ALLOWED');
    expect((await call(t, 'POST', '/stocktake/generate-missing', w.mgr.token, {})).statusCode).toBe(400);
    expect((await call(t, 'POST', '/stocktake/generate-missing', w.counter.token, { session_id: 999999 })).statusCode).toBe(404);
    // system rows count as not counted
    const list = await merged(t, w.mgr.token, sessionId, '&status_filter=unscanned');
    expect(list.list.map((row) => [row.counted_qty, row.user_id])).toEqual([[0, 'system'], [0, 'system']]);
  });
});

describe('GET /scan', () => {
  it('answers the item with its count; the book is hidden in an active blind session; barcode rules apply', async () => {
    const { rows, sessionId } = await zoneSession([8], 'blind');
    await scan(t, w.counter.token, sessionId, rows[0]!.sku, 7);
    const found = await call(t, 'GET', `/scan?session_id=${sessionId}&barcode=${rows[0]!.sku}`, w.counter.token);
    expect(found.json()).toMatchObject({ session_id: sessionId, in_scope: true, stock_id: rows[0]!.id, counted_qty: 7, stock_qty: null, diff_qty: null, scanned: true });
    const betaRow = await stockIn(t, w.betaMgr.token, { base_id: w.betaMaterial.id });
    const other = await call(t, 'GET', `/scan?session_id=${sessionId}&barcode=${betaRow.sku}`, w.counter.token);
    expect(other.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA' });
    expect((await call(t, 'GET', `/scan?session_id=${sessionId}&barcode=NOPE-404-X`, w.counter.token)).statusCode).toBe(404);
    expect((await call(t, 'GET', `/scan?barcode=${rows[0]!.sku}`, w.counter.token)).statusCode).toBe(400);
    await finish(t, w.mgr.token, sessionId);
    const open = await call(t, 'GET', `/scan?session_id=${sessionId}&barcode=${rows[0]!.sku}`, w.counter.token);
    expect(open.json()).toMatchObject({ stock_qty: 8, counted_qty: 7, diff_qty: -1 });
  });
});
