import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { approvedBorrow, borrowLedgerCheck, dispatchOk, materialWithStock, post, rowState, useBorrowWorld, type BorrowWorld } from './borrow-fixtures.js';

let t: TestInventory;
let w: BorrowWorld;

useBorrowWorld((built) => ({ t, w } = built));

interface LineState {
  id: number;
  stock_id: number;
  status: string;
  current_holder_id: number | null;
  pending_id: number | null;
  pending_to: number | null;
}

async function lineStates(ids: number[]): Promise<LineState[]> {
  return queryRows<LineState>(
    t,
    sql`select b.id, b.stock_id, b.status, b.current_holder_id, x.id as pending_id, x.to_user_id as pending_to
          from trans_borrow b left join trans_borrow_transfer x on x.borrow_id = b.id and x.status = 'PENDING'
         where b.id in ${sql.raw(`(${ids.join(',')})`)} order by b.id`,
  );
}

type Outcome = { statusCode: number; json(): { code?: string } };
const outcome = (response: Outcome) => (response.statusCode < 300 ? 'OK' : `${response.statusCode} ${response.json().code}`);

/** What a refused call in these races may answer: never a 500, a deadlock or a lost update. */
const ALLOWED_REFUSALS = new Set(['400 STATUS_NOT_ALLOWED', '403 NOT_HOLDER', '403 NOT_RECEIVER', '400 QUANTITY_EXCEEDS']);

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: holders racing on the same lines', () => {
  it('transfer, return, accept and reject at once, round after round: the ledger and the holders stay right', async () => {
    const users = new Map<number, TestUser>([
      [w.sales.id, w.sales],
      [w.sales2.id, w.sales2],
    ]);
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 10, 10, 10]);
    const request = await approvedBorrow(w, [{ base_id: material.id, quantity: 12 }]);
    const slip = await dispatchOk(t, w.mgr.token, {
      request_id: request.id,
      borrower_id: w.sales.id,
      lines: rows.map((row) => ({ barcode: row.sku, quantity: 3 })),
    });
    const ids = slip.lines.map((line) => line.id);
    const returnedByResponses = new Map<number, number>(ids.map((id) => [id, 0]));

    for (let round = 0; round < 10; round++) {
      const states = await lineStates(ids);
      const calls: Array<{ lineId: number; kind: string; run: Promise<Outcome> }> = [];
      for (const state of states) {
        if (state.status !== 'borrowed' || state.current_holder_id === null) continue;
        const holder = users.get(state.current_holder_id)!;
        const other = holder.id === w.sales.id ? w.sales2 : w.sales;
        const add = (kind: string, run: Promise<Outcome>) => calls.push({ lineId: state.id, kind, run });
        add('transfer', post(t, `/${state.id}/transfer`, holder.token, { to_user_id: other.id }));
        add('return', post(t, `/${state.id}/return`, holder.token, { quantity: 0.25, remark: `h${round}` }));
        add('return', post(t, `/${state.id}/return`, other.token, { quantity: 0.25, remark: `o${round}` }));
        add('transfer', post(t, `/${state.id}/transfer`, other.token, { to_user_id: holder.id }));
        if (state.pending_id !== null) {
          const receiver = users.get(state.pending_to!)!;
          add('decide', post(t, `/transfer/${state.pending_id}/accept`, receiver.token));
          if (round % 2 === 1) add('decide', post(t, `/transfer/${state.pending_id}/reject`, receiver.token, { reason: `r${round}` }));
          add('decide', post(t, `/transfer/${state.pending_id}/accept`, (receiver.id === w.sales.id ? w.sales2 : w.sales).token));
        }
      }
      const responses = await Promise.all(calls.map((call) => call.run));

      for (const [i, response] of responses.entries()) {
        const result = outcome(response);
        expect(result === 'OK' || ALLOWED_REFUSALS.has(result), `${calls[i]!.kind}: ${JSON.stringify(response.json())}`).toBe(true);
        if (calls[i]!.kind === 'return' && result === 'OK') {
          returnedByResponses.set(calls[i]!.lineId, returnedByResponses.get(calls[i]!.lineId)! + 0.25);
        }
      }
      // one accept-or-reject per PENDING transfer wins, never two
      for (const lineId of ids) {
        const decisions = responses.filter((response, i) => calls[i]!.lineId === lineId && calls[i]!.kind === 'decide' && response.statusCode < 300);
        expect(decisions.length).toBeLessThanOrEqual(1);
      }

      await borrowLedgerCheck(t);
      for (const state of await lineStates(ids)) {
        if (state.status === 'borrowed') expect(users.has(state.current_holder_id!)).toBe(true);
        else expect(state.current_holder_id).toBeNull();
      }
    }

    const stored = await queryRows<{ id: number; returned: string }>(
      t,
      sql`select id, returned_quantity::text as returned from trans_borrow where id in ${sql.raw(`(${ids.join(',')})`)} order by id`,
    );
    for (const row of stored) expect(Number(row.returned)).toBe(returnedByResponses.get(row.id));
    for (const [i, row] of rows.entries()) {
      const state = await rowState(t, row.id);
      expect(state.stock).toBe(10);
      expect(state.available).toBe(7 + returnedByResponses.get(ids[i]!)!);
    }
  });
});
