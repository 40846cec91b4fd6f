import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { queryRows, useTestApp } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { call, rowsAt, scan, startSession, stocktakeCast, uniqueZone, type StocktakeCast } from './stocktake-fixtures.js';

let t: TestInventory;
let w: StocktakeCast;
useTestApp(stocktakeCast, (built) => ({ t, w } = built));

const sessionsOf = (company: string) =>
  queryRows<{ id: number; status: string; finish_reason: string | null; superseded_by_id: number | null }>(
    t,
    sql`select id, status, finish_reason, superseded_by_id from stocktake_sessions where company_name = ${company} order by id`,
  );
const draftCount = async (sessionId: number) =>
  (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from stocktake_drafts where session_id = ${sessionId}`))[0]!.n;

describe('POST /draft/start-new', () => {
  it('finishes the earlier active session in the same call, keeps its drafts and answers superseded_count', async () => {
    const zone = uniqueZone();
    const rows = await rowsAt(t, w.mgr.token, w.material, [[`${zone}/01`, 5], [`${zone}/02`, 6]]);
    const first = await startSession(t, w.mgr.token, { mode: 'blind' });
    expect(first).toMatchObject({ mode: 'blind', scope_type: 'full', scope_config: { locations: [] }, status: 'active', superseded_count: 0 });
    await scan(t, w.counter.token, first.session_id, rows[0]!.sku, 5);
    await scan(t, w.counter.token, first.session_id, rows[1]!.sku, 6);

    const second = await startSession(t, w.counter.token, { mode: 'open', company_name: 'BETA' });
    expect(second).toMatchObject({ company_name: 'ALPHA', superseded_count: 2, superseded_session_id: first.session_id, status: 'active' });
    expect(await draftCount(first.session_id)).toBe(2);
    const stored = (await sessionsOf('ALPHA')).filter((s) => s.id >= first.session_id);
    expect(stored).toEqual([
      { id: first.session_id, status: 'finished', finish_reason: 'superseded', superseded_by_id: second.session_id },
      { id: second.session_id, status: 'active', finish_reason: null, superseded_by_id: null },
    ]);
  });

  it('active scope: trims, drops empties, de-duplicates in first-seen order and freezes the list', async () => {
    const session = await startSession(t, w.mgr.token, {
      scope_type: 'active',
      scope_config: { locations: [' B / 02 ', 'A/01', 'B/02', '', '  ', 'A/01 ', 'C'] },
    });
    expect(session.scope_config.locations).toEqual(['B/02', 'A/01', 'C']);
    const active = await call(t, 'GET', '/draft/active-session', w.counter.token);
    expect(active.json()).toMatchObject({ session_id: session.session_id, scope_type: 'active', scope_config: { locations: ['B/02', 'A/01', 'C'] } });
  });

  it('full scope ignores any locations sent', async () => {
    const session = await startSession(t, w.mgr.token, { scope_type: 'full', scope_config: { locations: ['A'] } });
    expect(session.scope_config.locations).toEqual([]);
  });

  it('refuses bad scopes with 400 and creates nothing', async () => {
    const before = (await sessionsOf('ALPHA')).length;
    const cases: Array<[Record<string, unknown>, string]> = [
      [{ mode: 'open', scope_type: 'partial' }, 'SCOPE_INVALID'],
      [{ mode: 'open', scope_type: 'active' }, 'SCOPE_INVALID'],
      [{ mode: 'open', scope_type: 'active', scope_config: { locations: [' ', ''] } }, 'SCOPE_INVALID'],
      [{ mode: 'open', scope_type: 'active', scope_config: { locations: Array.from({ length: 2001 }, (_, i) => `L/${i}`) } }, 'SCOPE_INVALID'],
      [{ mode: 'half', scope_type: 'full' }, 'VALIDATION_FAILED'],
      [{ scope_type: 'full' }, 'VALIDATION_FAILED'],
      [{ mode: 'open', scope_type: 'active', scope_config: { locations: 'A/01' } }, 'VALIDATION_FAILED'],
    ];
    for (const [body, code] of cases) {
      const response = await call(t, 'POST', '/draft/start-new', w.mgr.token, body);
      expect(response.statusCode, JSON.stringify(body).slice(0, 80)).toBe(400);
      expect(response.json()).toMatchObject({ code });
      expect(typeof response.json().msg).toBe('string');
    }
    expect((await sessionsOf('ALPHA')).length).toBe(before);
  });

  it('2,000 locations after de-duplication are accepted (2,001 raw with one duplicate)', async () => {
    const locations = [...Array.from({ length: 2000 }, (_, i) => `M/${i}`), 'M/0'];
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations } });
    expect(session.scope_config.locations).toHaveLength(2000);
  });

  it('the 2,000 cap counts after de-duplication, however long the raw list (10,001 copies of one location are one location)', async () => {
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: Array.from({ length: 10001 }, (_, i) => (i % 2 ? ' N/1 ' : 'N/1')) } });
    expect(session.scope_config.locations).toEqual(['N/1']);
  });

  it('a cross-domain caller must name the company (400 COMPANY_REQUIRED); an ordinary user always gets their own', async () => {
    const missing = await call(t, 'POST', '/draft/start-new', w.admin, { mode: 'open', scope_type: 'full' });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().code).toBe('COMPANY_REQUIRED');
    const typo = await call(t, 'POST', '/draft/start-new', w.admin, { mode: 'open', scope_type: 'full', company_name: 'NOPE_CO' });
    expect(typo.statusCode).toBe(400);
    expect(typo.json().code).toBe('UNKNOWN_COMPANY');
    const beta = await startSession(t, w.admin, { company_name: 'BETA' });
    expect(beta.company_name).toBe('BETA');
    const forced = await startSession(t, w.betaMgr.token, { company_name: 'ALPHA' });
    expect(forced).toMatchObject({ company_name: 'BETA', superseded_session_id: beta.session_id });
  });

  it('the database itself keeps one active session per company (partial unique index)', async () => {
    await startSession(t, w.mgr.token, {});
    const second = t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`insert into stocktake_sessions (company_name, mode, scope_type, scope_config, status, initiator_name, started_at)
        values ('ALPHA', 'open', 'full', '{"locations":[]}', 'active', 'x', now())`),
    );
    await expect(second).rejects.toThrow();
    expect((await sessionsOf('ALPHA')).filter((s) => s.status === 'active')).toHaveLength(1);
  });

  it('needs inventory_stocktake:operation (403) and a token (401)', async () => {
    const forbidden = await call(t, 'POST', '/draft/start-new', w.sales.token, { mode: 'open', scope_type: 'full' });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('FORBIDDEN');
    expect((await t.request('POST', '/api/v1/draft/start-new', { body: { mode: 'open', scope_type: 'full' } })).statusCode).toBe(401);
  });
});

describe('GET /draft/active-session', () => {
  it('counts distinct scanned items, leaves out system rows, and answers null without an active session', async () => {
    const zone = uniqueZone();
    const rows = await rowsAt(t, w.mgr.token, w.material, [[`${zone}/01`, 3], [`${zone}/01`, 4], [`${zone}/02`, 0.5]]);
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: [zone] } });
    await scan(t, w.counter.token, session.session_id, rows[0]!.sku, 3);
    await scan(t, w.counter2.token, session.session_id, rows[0]!.sku, 2); // same item again: still one
    await scan(t, w.counter.token, session.session_id, rows[1]!.sku, 4);
    const active = await call(t, 'GET', '/draft/active-session', w.counter.token);
    expect(active.json()).toMatchObject({ session_id: session.session_id, mode: 'open', scope_type: 'active', scanned: 2, initiator: '仓管甲' });

    const closed = await call(t, 'POST', '/stocktake/generate-missing', w.mgr.token, { session_id: session.session_id });
    expect(closed.json()).toMatchObject({ generated: 1, counted: 2, total: 3, status: 'finished' });
    const none = await call(t, 'GET', '/draft/active-session', w.counter.token);
    expect(none.statusCode).toBe(200);
    expect(none.body).toBe('null');
  });

  it('scanned leaves out system rows of the active session', async () => {
    const zone = uniqueZone();
    const [row] = await rowsAt(t, w.mgr.token, w.material, [[`${zone}/01`, 3]]);
    const session = await startSession(t, w.mgr.token, {});
    await t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`insert into stocktake_drafts (session_id, uuid, stock_id, source_table, base_id, user_id, quantity, scan_time, company_name, book_quantity, book_location)
        values (${session.session_id}, ${row!.sku}, ${row!.id}, 'stock_buy', ${row!.base_id}, 'system', 0, now(), 'ALPHA', 3, ${row!.warehouse_location})`),
    );
    expect((await call(t, 'GET', '/draft/active-session', w.mgr.token)).json().scanned).toBe(0);
  });

  it('a cross-domain caller naming no company gets the one active session of all companies, null when none, 400 when several', async () => {
    await t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`update stocktake_sessions set status = 'finished', finish_reason = 'completed', finished_at = now() where status = 'active'`),
    );
    expect((await call(t, 'GET', '/draft/active-session', w.admin)).json()).toBeNull();
    expect((await call(t, 'GET', '/stocktake/all-items', w.admin)).json()).toMatchObject({ session_id: null, mode: 'blind' });

    const alpha = await startSession(t, w.mgr.token, {});
    expect((await call(t, 'GET', '/draft/active-session', w.admin)).json()).toMatchObject({ session_id: alpha.session_id, company_name: 'ALPHA' });
    expect((await call(t, 'GET', '/stocktake/all-items', w.admin)).json().session_id).toBe(alpha.session_id);

    await startSession(t, w.admin, { company_name: 'BETA' });
    for (const path of ['/draft/active-session', '/stocktake/all-items']) {
      const unnamed = await call(t, 'GET', path, w.admin);
      expect(unnamed.statusCode, path).toBe(400);
      // the read names its own parameter: company, not a create's company_name
      expect(unnamed.json()).toMatchObject({ code: 'COMPANY_REQUIRED', field: 'company' });
    }
  });

  it('cross-domain callers may name the company; the ALPHA session is not BETA`s', async () => {
    const alpha = await startSession(t, w.mgr.token, {});
    expect((await call(t, 'GET', '/draft/active-session?company=ALPHA', w.admin)).json().session_id).toBe(alpha.session_id);
    expect((await call(t, 'GET', '/draft/active-session?company=ALPHA', w.betaMgr.token)).json().session_id).not.toBe(alpha.session_id);
    expect((await call(t, 'GET', '/draft/active-session', w.sales.token)).statusCode).toBe(403);
  });
});

describe('POST /draft/clear and GET /draft/list', () => {
  let sessionId: number;
  let skus: string[];

  beforeAll(async () => {
    const zone = uniqueZone();
    const rows = await rowsAt(t, w.mgr.token, w.material, Array.from({ length: 5 }, (_, i): [string, number] => [`${zone}/0${i}`, i + 1]));
    skus = rows.map((row) => row.sku);
    sessionId = (await startSession(t, w.mgr.token, {})).session_id;
    for (const [i, sku] of skus.entries()) await scan(t, w.counter.token, sessionId, sku, i + 1, { remark: `r${i}` });
  });

  it('pages in the database and filters uuid exactly', async () => {
    const page2 = await call(t, 'GET', `/draft/list?session_id=${sessionId}&page=2&limit=2`, w.counter.token);
    expect(page2.json()).toMatchObject({ total: 5, page: 2, limit: 2 });
    expect(page2.json().items).toHaveLength(2);
    const exact = await call(t, 'GET', `/draft/list?session_id=${sessionId}&uuid=${skus[2]}`, w.counter.token);
    expect(exact.json().total).toBe(1);
    expect(exact.json().items[0]).toMatchObject({ uuid: skus[2], quantity: 3, remark: 'r2', user_id: '盘点员乙', company: 'ALPHA', material_name: '盘点物料' });
    const partial = await call(t, 'GET', `/draft/list?session_id=${sessionId}&uuid=${skus[2]!.slice(0, -1)}`, w.counter.token);
    expect(partial.json().total).toBe(0);
    expect(Object.keys(exact.json().items[0])).not.toContain('book_quantity');
  });

  it('another company`s session is 404; a missing session_id is 400', async () => {
    expect((await call(t, 'GET', `/draft/list?session_id=${sessionId}`, w.betaMgr.token)).statusCode).toBe(404);
    expect((await call(t, 'GET', '/draft/list', w.mgr.token)).statusCode).toBe(400);
    expect((await call(t, 'POST', '/draft/clear', w.betaMgr.token, { session_id: sessionId })).statusCode).toBe(404);
    // the merged list answers a session that does not exist as blind, but another company's is 404 all the same
    for (const path of [`/draft/merged-list?session_id=${sessionId}`, `/stocktake/all-items?session_id=${sessionId}`]) {
      const foreign = await call(t, 'GET', path, w.betaMgr.token);
      expect(foreign.statusCode, path).toBe(404);
      expect(foreign.json().code).toBe('NOT_FOUND');
    }
  });

  it('clear needs session_id (400, nothing deleted) and then removes the session`s drafts', async () => {
    const missing = await call(t, 'POST', '/draft/clear', w.mgr.token, {});
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(await draftCount(sessionId)).toBe(5);
    const cleared = await call(t, 'POST', '/draft/clear', w.mgr.token, { session_id: sessionId });
    expect(cleared.json()).toEqual({ session_id: sessionId, cleared: 5 });
    expect(await draftCount(sessionId)).toBe(0);
  });

  it('a finished session cannot be cleared', async () => {
    const session = await startSession(t, w.mgr.token, {});
    await call(t, 'POST', '/stocktake/generate-missing', w.mgr.token, { session_id: session.session_id });
    const response = await call(t, 'POST', '/draft/clear', w.mgr.token, { session_id: session.session_id });
    expect(response.statusCode).toBe(400);
    expect(response.json().code).toBe('STATUS_NOT_ALLOWED');
  });
});

describe('GET /stocktake/companies', () => {
  it('ordinary users get their own company; cross-domain callers every company', async () => {
    expect((await call(t, 'GET', '/stocktake/companies', w.counter.token)).json()).toEqual(['ALPHA']);
    const all = (await call(t, 'GET', '/stocktake/companies', w.admin)).json() as string[];
    expect(all).toEqual(expect.arrayContaining(['ALPHA', 'BETA']));
    expect((await call(t, 'GET', '/stocktake/companies', w.sales.token)).statusCode).toBe(403);
  });
});

describe('audit', () => {
  it('sessions and drafts are audited under 库存盘点', async () => {
    const modules = await queryRows<{ table_name: string; module: string }>(
      t,
      sql`select distinct table_name, module from audit_logs where table_name in ('stocktake_sessions', 'stocktake_drafts') order by table_name`,
    );
    expect(modules).toEqual([
      { table_name: 'stocktake_drafts', module: '库存盘点' },
      { table_name: 'stocktake_sessions', module: '库存盘点' },
    ]);
  });
});
