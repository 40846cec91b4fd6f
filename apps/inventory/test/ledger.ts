import { sql, type SQL } from 'drizzle-orm';
import { expect } from 'vitest';
import { queryRows } from './fixtures.js';
import type { TestInventory } from './helpers.js';

/**
 * What holds stock out of a row's available_quantity, one query per flow, each answering
 * (stock_id, quantity): open reservations of outbound, borrow and scrap requests and the borrowed,
 * not returned quantity (contract §8 "Stock").
 */
export const OPEN_HOLDS: SQL[] = [
  // outbound requests: reserved lines of requests in status 0 or 1
  sql`select (line->>'stock_id')::int as stock_id, (line->>'quantity')::numeric as quantity
        from outbound_requests r cross join lateral jsonb_array_elements(r.items_json) line
       where r.status in (0, 1) and (line->>'reserved')::boolean`,
  // borrow requests: reserved lines of requests in status 0 or 1
  sql`select (line->>'stock_id')::int as stock_id, (line->>'quantity')::numeric as quantity
        from borrow_requests r cross join lateral jsonb_array_elements(r.items_json) line
       where r.status in (0, 1) and (line->>'reserved')::boolean`,
  // borrow lines: borrowed and not returned is frozen out of available (spec 2.6)
  sql`select b.stock_id, b.quantity - b.returned_quantity as quantity from trans_borrow b where b.status = 'borrowed'`,
  // scrap requests: reserved stock-row lines of requests in status 0 or 1 (borrow and ledger lines never reserve)
  sql`select (line->>'stock_id')::int as stock_id, (line->>'quantity')::numeric as quantity
        from scrap_requests r cross join lateral jsonb_array_elements(r.items_json) line
       where r.status in (0, 1) and (line->>'reserved')::boolean
         and line->>'source_table' in ('stock_buy', 'stock_semi', 'stock_product')`,
];

/** Requests that are no longer open but still claim a reservation (would be a leak). */
export const STALE_RESERVATIONS: SQL[] = [
  sql`select 'outbound_requests' as source, r.id
        from outbound_requests r cross join lateral jsonb_array_elements(r.items_json) line
       where r.status not in (0, 1) and (line->>'reserved')::boolean`,
  sql`select 'borrow_requests' as source, r.id
        from borrow_requests r cross join lateral jsonb_array_elements(r.items_json) line
       where r.status not in (0, 1) and (line->>'reserved')::boolean`,
  // also a scrap line that is not a stock row but claims a reservation
  sql`select 'scrap_requests' as source, r.id
        from scrap_requests r cross join lateral jsonb_array_elements(r.items_json) line
       where (line->>'reserved')::boolean
         and (r.status not in (0, 1) or line->>'source_table' not in ('stock_buy', 'stock_semi', 'stock_product'))`,
];

export interface LedgerMismatch {
  id: number;
  sku: string;
  stock_quantity: string;
  available_quantity: string;
  held: string;
}

/** Rows where available_quantity ≠ stock_quantity − everything held (empty when the ledger is right). */
export async function ledgerMismatches(t: TestInventory): Promise<LedgerMismatch[]> {
  return queryRows<LedgerMismatch>(
    t,
    sql`with holds as (${sql.join(OPEN_HOLDS, sql` union all `)})
        select s.id, s.sku, s.stock_quantity::text, s.available_quantity::text, coalesce(sum(h.quantity), 0)::text as held
          from stock_rows s left join holds h on h.stock_id = s.id
         group by s.id
        having s.available_quantity <> s.stock_quantity - coalesce(sum(h.quantity), 0)
         order by s.id`,
  );
}

/**
 * The ledger identity (contract §8), asserted for every stock row:
 * available_quantity = stock_quantity − open reservations − borrowed and not returned;
 * and no closed request still claims a reservation.
 */
export async function ledgerCheck(t: TestInventory): Promise<void> {
  expect(await ledgerMismatches(t)).toEqual([]);
  const stale = await queryRows(t, sql.join(STALE_RESERVATIONS, sql` union all `));
  expect(stale).toEqual([]);
}
