import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows, stockIn } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { approvedBorrow, dispatchOk, materialWithStock, useBorrowWorld, type BorrowWorld } from './borrow-fixtures.js';
import { approvedRequest } from './outbound-fixtures.js';
import { call, uniqueZone } from './stocktake-fixtures.js';

let t: TestInventory;
let w: BorrowWorld;
useBorrowWorld((built) => ({ t, w } = built));

interface Recommended {
  full_path: string;
  moves: number;
  sku_count: number;
  last_move: string;
}

const recommend = async (token: string, query = '') =>
  (await call(t, 'GET', `/stocktake/recommend-locations?top_n=500${query}`, token)).json() as Recommended[];

describe('GET /stocktake/recommend-locations', () => {
  it('counts outbound, stock-in, borrow and stock moves of the last N days per location; stores nothing', async () => {
    const zone = uniqueZone('REC');
    const at = (suffix: string) => `${zone}/${suffix}`;
    // stock-in: two rows today at IN, one 100 days ago at OLD (production date also old)
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5, 5], { warehouse_location: at('IN') });
    const old = new Date(Date.now() - 100 * 24 * 3600_000).toISOString().slice(0, 10);
    await stockIn(t, w.mgr.token, { base_id: material.id, warehouse_location: at('OLD'), in_date: old, production_date: old });
    // outbound from a row at OUT (its stock-in counts at OUT too)
    const out = await materialWithStock(t, 'ALPHA', [10], { warehouse_location: at('OUT'), in_date: old });
    const request = await approvedRequest(w, [{ base_id: out.material.id, quantity: 2 }]);
    const executed = await t.request('POST', '/api/v1/outbound', {
      token: w.mgr.token, body: { request_id: request.id, lines: [{ barcode: out.rows[0]!.sku, quantity: 2 }] },
    });
    expect(executed.statusCode).toBe(201);
    // borrows dispatched from a row at BOR: one names its location LEND (spec 4.6 rule 6: borrow at its
    // location), one names none and counts at the shelf it left
    const bor = await materialWithStock(t, 'ALPHA', [10], { warehouse_location: at('BOR'), in_date: old });
    const lent = await approvedBorrow(w, [{ base_id: bor.material.id, quantity: 1 }]);
    await dispatchOk(t, w.mgr.token, { request_id: lent.id, borrower_id: w.sales.id, lines: [{ barcode: bor.rows[0]!.sku, quantity: 1 }], location: at('LEND') });
    const unplaced = await approvedBorrow(w, [{ base_id: bor.material.id, quantity: 1 }]);
    await dispatchOk(t, w.mgr.token, { request_id: unplaced.id, borrower_id: w.sales.id, lines: [{ barcode: bor.rows[0]!.sku, quantity: 1 }] });
    // a move from IN to MOV: both count
    const moved = await call(t, 'POST', `/stock/${rows[0]!.id}/move`, w.mgr.token, { to_location: at('MOV'), quantity: 1 });
    expect(moved.statusCode).toBe(200);

    const auditBefore = (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from audit_logs`))[0]!.n;
    const mine = (list: Recommended[]) => Object.fromEntries(list.filter((r) => r.full_path.startsWith(zone)).map((r) => [r.full_path, [r.moves, r.sku_count]]));
    expect(mine(await recommend(w.mgr.token))).toEqual({
      [at('IN')]: [3, 2], // two stock-ins and the move out
      [at('OUT')]: [1, 1], // the outbound line (its stock-in is old)
      [at('LEND')]: [1, 1], // the dispatch that named its location
      [at('BOR')]: [1, 1], // the one that named none, at the shelf it left
      [at('MOV')]: [2, 1], // the split row's stock-in date is today's too, and the move in
    });
    expect(mine(await recommend(w.mgr.token, '&days=365'))).toMatchObject({ [at('OLD')]: [1, 1], [at('OUT')]: [2, 1] });
    const top = (await call(t, 'GET', '/stocktake/recommend-locations?days=1&top_n=1', w.mgr.token)).json() as Recommended[];
    expect(top).toHaveLength(1);
    expect(Date.parse(top[0]!.last_move)).not.toBeNaN();
    expect((await queryRows<{ n: number }>(t, sql`select count(*)::int as n from audit_logs`))[0]!.n).toBe(auditBefore);
    // another company sees none of it
    expect(mine(await recommend(w.betaMgr.token))).toEqual({});
  });

  it('days 1–365 and top_n 1–500, else 400; needs inventory_stocktake', async () => {
    for (const query of ['days=0', 'days=366', 'top_n=0', 'top_n=501', 'days=abc']) {
      const response = await call(t, 'GET', `/stocktake/recommend-locations?${query}`, w.mgr.token);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await call(t, 'GET', '/stocktake/recommend-locations', w.mgr.token)).statusCode).toBe(200);
    expect((await call(t, 'GET', '/stocktake/recommend-locations', w.sales.token)).statusCode).toBe(403);
  });
});

interface Node {
  name: string;
  full_path: string;
  children: Node[];
}

describe('GET /api/v1/warehouse/tree', () => {
  it('builds { name, full_path, children } from stock locations; prefixes keep whole subtrees of matching top-level nodes', async () => {
    const zone = uniqueZone('T');
    await materialWithStock(t, 'ALPHA', [1], { warehouse_location: `${zone}WH1/A/01` });
    await materialWithStock(t, 'ALPHA', [1], { warehouse_location: `${zone}WH1/A/02` });
    await materialWithStock(t, 'ALPHA', [1], { warehouse_location: `${zone}WH1/B` });
    await materialWithStock(t, 'ALPHA', [1], { warehouse_location: `${zone}WH2` });
    await materialWithStock(t, 'ALPHA', [1], { warehouse_location: `${zone}OTHER/X` });
    await materialWithStock(t, 'BETA', [1], { warehouse_location: `${zone}WH3/Z` });
    const tree = (await call(t, 'GET', `/warehouse/tree?prefixes=${encodeURIComponent(`${zone}WH, nothing`)}`, w.mgr.token)).json() as Node[];
    expect(tree).toEqual([
      {
        name: `${zone}WH1`, full_path: `${zone}WH1`, children: [
          { name: 'A', full_path: `${zone}WH1/A`, children: [
            { name: '01', full_path: `${zone}WH1/A/01`, children: [] },
            { name: '02', full_path: `${zone}WH1/A/02`, children: [] },
          ] },
          { name: 'B', full_path: `${zone}WH1/B`, children: [] },
        ],
      },
      { name: `${zone}WH2`, full_path: `${zone}WH2`, children: [] },
    ]);
    const all = (await call(t, 'GET', '/warehouse/tree', w.mgr.token)).json() as Node[];
    expect(all.map((node) => node.name)).toEqual(expect.arrayContaining([`${zone}WH1`, `${zone}WH2`, `${zone}OTHER`]));
    expect(all.map((node) => node.name)).not.toContain(`${zone}WH3`);
    // a prefix of a lower level does not select a top-level node
    expect((await call(t, 'GET', `/warehouse/tree?prefixes=${zone}WH1/A`, w.mgr.token)).json()).toEqual([]);
    expect((await call(t, 'GET', `/warehouse/tree?prefixes=${zone}WH3`, w.admin)).json()).toHaveLength(1);
    expect((await call(t, 'GET', '/warehouse/tree', w.sales.token)).statusCode).toBe(403);
  });
});
