import { sql } from 'drizzle-orm';
import type { Tx } from '@wms/platform';
import { reservedPerRow, type HeldLine } from './lines.js';

/**
 * The one routine every release of a reservation goes through (reject, withdraw, close, execution,
 * and the same for borrow and scrap): gives the reserved quantities back to available_quantity and
 * answers the lines marked reserved = false for the caller to store.
 *
 * One statement for all rows: the materialized CTE locks them in ascending id order (FOR UPDATE above
 * the sort; a no-op for rows the caller locked already), so a release never deadlocks with another
 * release or reservation, and only rows it locked reach the update. The caller must have made the
 * request's state change safe first (row lock or guarded status update), so that a reservation is
 * released exactly once. A row deleted meanwhile has nothing to give back to and is skipped.
 */
export async function releaseReservation<Line extends HeldLine>(tx: Tx, lines: readonly Line[]): Promise<Line[]> {
  const perRow = reservedPerRow(lines);
  if (perRow.size > 0) {
    const ids = [...perRow.keys()];
    const quantities = [...perRow.values()].map((quantity) => quantity.toString());
    await tx.execute(
      sql`with locked as materialized (
            select id from stock_rows where id = any(${sql.param(ids)}::int[]) order by id for update
          )
          update stock_rows as s
             set available_quantity = s.available_quantity + released.quantity, updated_at = now()
            from locked
            join unnest(${sql.param(ids)}::int[], ${sql.param(quantities)}::numeric[]) as released(id, quantity) on released.id = locked.id
           where s.id = locked.id`,
    );
  }
  return lines.map((line) => ({ ...line, reserved: false }));
}
