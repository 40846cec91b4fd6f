import { setTimeout as sleep } from 'node:timers/promises';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { materialWithStock, rowState, submit, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';
import { roundTripsOf } from './round-trips.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

const requestsWithRemark = async (remark: string) =>
  (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from outbound_requests where remark = ${remark}`))[0]!.n;

/**
 * Waits until some backend waits for a row lock (the submission's take behind the test's lock). Up to 10 s:
 * beside the rest of the suite on two cores, the submission's first round trip alone once took over 2 s.
 */
async function untilWaitingForLock(): Promise<void> {
  for (let i = 0; i < 1000; i++) {
    const [found] = await queryRows<{ n: number }>(
      t,
      sql`select count(*)::int as n from pg_stat_activity where datname = current_database() and wait_event_type = 'Lock'`,
    );
    if (found!.n > 0) return;
    await sleep(10);
  }
  throw new Error('no backend waited for the row lock');
}

describe.skipIf(!process.env.TEST_DATABASE_URL)('PostgreSQL: a submission in two round trips', () => {
  it('reads its candidates while opening the transaction, and writes, takes and commits in the second', async () => {
    const stock = await Promise.all([1, 2, 3].map(() => materialWithStock(t, 'ALPHA', [10])));
    const items = stock.map(({ material }) => ({ base_id: material.id, quantity: 2 }));
    // the first submission of the connection prepares the statements and caches the actor
    expect((await submit(t, w.sales.token, { outbound_type: 'USE', remark: 'warm', items })).statusCode).toBe(201);

    let response: Awaited<ReturnType<typeof submit>> | undefined;
    // a connection PREPAREs a statement the first time it runs it (once per session), not counted here
    const sent = (await roundTripsOf(async () => {
      response = await submit(t, w.sales.token, { outbound_type: 'USE', remark: 'counted', items });
    })).filter((text) => !/^prepare /.test(text));
    expect(response!.statusCode, response!.body).toBe(201);
    expect(sent, sent.join('\n---\n')).toHaveLength(2);
    expect(sent[0]).toMatch(/^begin;[\s\S]*execute sql_reserve_candidates/);
    expect(sent[1]).toMatch(/execute sql_outbound_request_insert[\s\S]*execute sql_reserve_take_all[\s\S]*;\s*commit$/);
    for (const { rows } of stock) expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 10, available: 6 });
  });

  it('a take that lost its race commits nothing and starts over: the request is refused as short, not stored', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5]);
    let letGo!: () => void;
    const held = new Promise<void>((resolve) => (letGo = resolve));
    // another transaction holds the row and empties it while the submission waits for the row
    const rival = t.service.deps.database.transaction({ actor: 'rival' }, async (tx) => {
      await tx.execute(sql`select id from stock_rows where id = ${rows[0]!.id} for update`);
      await held;
      await tx.execute(sql`update stock_rows set available_quantity = 0 where id = ${rows[0]!.id}`);
    });
    const submission = submit(t, w.sales.token, { outbound_type: 'USE', remark: 'lost race', items: [{ base_id: material.id, quantity: 3 }] });
    await untilWaitingForLock();
    letGo();
    await rival;

    const response = await submission;
    expect(response.statusCode, response.body).toBe(400);
    expect(response.json()).toMatchObject({ code: 'STOCK_SHORTAGE', remaining: 0 });
    expect(await requestsWithRemark('lost race')).toBe(0);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 5, available: 0 });
    // the rival stood in for a holder the ledger does not know: give the row back before the ledger check
    await t.service.deps.database.transaction({ actor: 'rival' }, (tx) =>
      tx.execute(sql`update stock_rows set available_quantity = stock_quantity where id = ${rows[0]!.id}`),
    );
  });
});
