import { eq, sql } from 'drizzle-orm';
import type { Tx } from '@wms/platform';
import { stockRows } from '../../db/schema/index.js';
import { reservedPerRow, type HeldLine } from './lines.js';

/**
 * The one routine every release of a reservation goes through (reject, withdraw, close, execution,
 * and the same for borrow and scrap): gives the reserved quantities back to available_quantity, in
 * ascending row id order, and answers the lines marked reserved = false for the caller to store.
 *
 * The caller must have made the request's state change safe first (row lock or guarded status
 * update), so that a reservation is released exactly once. A row deleted meanwhile has nothing to
 * give back to and is skipped.
 */
export async function releaseReservation<Line extends HeldLine>(tx: Tx, lines: readonly Line[]): Promise<Line[]> {
  const perRow = [...reservedPerRow(lines)].sort(([a], [b]) => a - b);
  for (const [stockId, quantity] of perRow) {
    await tx
      .update(stockRows)
      .set({ availableQuantity: sql`${stockRows.availableQuantity} + ${quantity.toString()}::numeric`, updatedAt: sql`now()` })
      .where(eq(stockRows.id, stockId));
  }
  return lines.map((line) => ({ ...line, reserved: false }));
}
