import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { usingPostgres } from '@wms/platform/testing';
import { queryRows, useTestApp } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { call, rowsAt, startSession, stocktakeCast, uniqueZone, type StocktakeCast } from './stocktake-fixtures.js';

let t: TestInventory;
let w: StocktakeCast;
useTestApp(stocktakeCast, (built) => ({ t, w } = built));

const outcome = (response: { statusCode: number; json(): { code?: string } }) =>
  response.statusCode < 300 ? 'OK' : `${response.statusCode} ${response.json().code}`;

describe.skipIf(!usingPostgres())('PostgreSQL: stocktake races', () => {
  it('parallel scans of one item by several counters leave exactly one draft row, with one of the sent counts', async () => {
    const zone = uniqueZone('RACE');
    const [row] = await rowsAt(t, w.mgr.token, w.material, [[zone, 50]]);
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: [zone] } });
    const counters: TestUser[] = [w.counter, w.counter2, w.mgr];
    for (let round = 0; round < 5; round++) {
      const sent = Array.from({ length: 24 }, (_, i) => ({ user: counters[i % counters.length]!, quantity: round * 100 + i }));
      const responses = await Promise.all(
        sent.map(({ user, quantity }) => call(t, 'POST', '/draft/add', user.token, { session_id: session.session_id, barcode: row!.sku, quantity })),
      );
      expect(responses.map(outcome)).toEqual(sent.map(() => 'OK'));
      const drafts = await queryRows<{ n: number; quantity: string; user_id: string }>(
        t,
        sql`select count(*) over ()::int as n, quantity::text, user_id from stocktake_drafts where session_id = ${session.session_id}`,
      );
      expect(drafts).toHaveLength(1);
      expect(sent.map((s) => String(s.quantity))).toContain(drafts[0]!.quantity);
      expect(['盘点员乙', '盘点员丙', '仓管甲']).toContain(drafts[0]!.user_id);
    }
  });

  it('parallel start-new calls of one company leave exactly one active session; every earlier one is superseded', async () => {
    const starters: TestUser[] = [w.mgr, w.counter, w.counter2];
    for (let round = 0; round < 5; round++) {
      const responses = await Promise.all(
        Array.from({ length: 9 }, (_, i) =>
          call(t, 'POST', '/draft/start-new', starters[i % 3]!.token, {
            mode: i % 2 ? 'blind' : 'open',
            scope_type: 'active',
            scope_config: { locations: [`R${round}/${i}`] },
          }),
        ),
      );
      expect(responses.map(outcome)).toEqual(responses.map(() => 'OK'));
      const sessions = await queryRows<{ id: number; status: string; finish_reason: string | null; superseded_by_id: number | null }>(
        t,
        sql`select id, status, finish_reason, superseded_by_id from stocktake_sessions where company_name = 'ALPHA' order by id`,
      );
      const active = sessions.filter((s) => s.status === 'active');
      expect(active).toHaveLength(1);
      expect(active[0]!.id).toBe(Math.max(...sessions.map((s) => s.id)));
      expect(sessions.filter((s) => s.status === 'finished').every((s) => s.finish_reason === 'superseded' && s.superseded_by_id !== null)).toBe(true);
      // each new session superseded the one before it: a chain, never a fork
      const superseders = sessions.map((s) => s.superseded_by_id).filter((id) => id !== null);
      expect(new Set(superseders).size).toBe(superseders.length);
    }
  });

  it('scans racing generate-missing: every accepted scan is kept, nothing lands after the session closed', async () => {
    const zone = uniqueZone('CLOSE');
    const rows = await rowsAt(t, w.mgr.token, w.material, Array.from({ length: 12 }, (_, i): [string, number] => [`${zone}/${i}`, 5]));
    const session = await startSession(t, w.mgr.token, { scope_type: 'active', scope_config: { locations: [zone] } });
    const scans = rows.map((row, i) => call(t, 'POST', '/draft/add', (i % 2 ? w.counter : w.counter2).token, { session_id: session.session_id, barcode: row.sku, quantity: 4 }));
    const close = call(t, 'POST', '/stocktake/generate-missing', w.mgr.token, { session_id: session.session_id });
    const [closed, ...scanned] = await Promise.all([close, ...scans]);
    expect(outcome(closed)).toBe('OK');
    const accepted = scanned.filter((response) => response.statusCode === 200).length;
    expect(scanned.map(outcome).every((o) => o === 'OK' || o === '400 STATUS_NOT_ALLOWED')).toBe(true);
    const drafts = await queryRows<{ user_id: string; quantity: string }>(
      t,
      sql`select user_id, quantity::text from stocktake_drafts where session_id = ${session.session_id}`,
    );
    expect(drafts).toHaveLength(12);
    expect(drafts.filter((d) => d.user_id !== 'system')).toHaveLength(accepted);
    expect(closed.json()).toMatchObject({ counted: accepted, generated: 12 - accepted, total: 12 });
  });
});
