import { describe, expect, it } from 'vitest';
import type { StockRowJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { approveOk, materialWithStock, submitOk, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

const alternatives = (token: string, baseId: number, requestId: number) =>
  t.request('GET', `/api/v1/outbound/alternatives?base_id=${baseId}&request_id=${requestId}`, { token });

type AlternativeRow = { id: number; available_quantity: number; live_available_quantity: number; reservation_applied: boolean };
const summary = (rows: AlternativeRow[]) => rows.map((row) => [row.id, row.available_quantity, row.reservation_applied]);

describe('GET /outbound/alternatives with a request_id: only a request the caller may use adds back', () => {
  it("a selection-only caller cannot read the reservation of somebody else's request (404, as its detail)", async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [6, 4]);
    const [six, four] = rows as [StockRowJson, StockRowJson];
    const theirs = await submitOk(t, w.sales2.token, [{ base_id: material.id, quantity: 6 }]); // six → 0

    // sales (SALES: outbound_selection only) may not see sales2's request: no add-back, the request is 404
    expect((await t.request('GET', `/api/v1/outbound/request/${theirs.id}`, { token: w.sales.token })).statusCode).toBe(404);
    const hidden = await alternatives(w.sales.token, material.id, theirs.id);
    expect(hidden.statusCode).toBe(404);
    expect(hidden.json()).toMatchObject({ code: 'NOT_FOUND', msg: expect.any(String) });

    // the applicant sees their own request's reservation added back
    const own = await alternatives(w.sales2.token, material.id, theirs.id);
    expect(own.statusCode).toBe(200);
    expect(summary(own.json())).toEqual([
      [six.id, 6, true],
      [four.id, 4, false],
    ]);

    // an approver sees every request of the company; an executor executes any of them by id
    for (const token of [w.mgr.token, w.op.token, w.admin]) {
      const seen = await alternatives(token, material.id, theirs.id);
      expect(seen.statusCode).toBe(200);
      expect(summary(seen.json())).toEqual([
        [six.id, 6, true],
        [four.id, 4, false],
      ]);
    }
  });

  it('an executor (outbound_create:operation) still gets the add-back of an approved request of somebody else', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [3]);
    const request = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 2 }]);
    await approveOk(t, w.mgr.token, request.id);
    const response = await alternatives(w.op.token, material.id, request.id);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject([{ id: rows[0]!.id, available_quantity: 3, live_available_quantity: 1, reservation_applied: true }]);
  });
});
