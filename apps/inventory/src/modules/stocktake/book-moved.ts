import { sql } from 'drizzle-orm';
import { Decimal } from '@wms/platform';
import type { StocktakeDraftRow } from '../../db/schema/index.js';
import type { MovedReason } from './schemas.js';

/**
 * Counts that know the book moved (docs/decisions.md): a draft keeps the book (quantity and location) of
 * its row when it was counted; once /adjust applied it, the book it left (the counted quantity). A row whose
 * book differs from that now moved after the count, so the count no longer describes the same book: it is
 * flagged and needs a recount (or `force` on /adjust). Movements before the count need nothing. A net-zero
 * change (out and back in) leaves the count comparable, so it is not flagged.
 */
export function movedReasonOf(
  draft: Pick<StocktakeDraftRow, 'quantity' | 'bookQuantity' | 'bookLocation' | 'adjustedAt'>,
  row: { stockQuantity: string; warehouseLocation: string } | undefined,
): MovedReason | null {
  if (!row) return 'row_deleted';
  const expected = draft.adjustedAt ? draft.quantity : draft.bookQuantity;
  if (!new Decimal(row.stockQuantity).eq(expected)) return 'quantity_changed';
  if (row.warehouseLocation !== draft.bookLocation) return 'location_changed';
  return null;
}

/** movedReasonOf as SQL over a draft `d` left-joined with its stock row `s`. */
export const MOVED_REASON_SQL = sql`case
  when s.id is null then 'row_deleted'
  when s.stock_quantity <> case when d.adjusted_at is not null then d.quantity else d.book_quantity end then 'quantity_changed'
  when s.warehouse_location <> d.book_location then 'location_changed'
end`;

export const MOVED_REASON_TEXT: Record<MovedReason, string> = {
  row_deleted: '库存行已删除',
  quantity_changed: '盘点后账面数量已变动',
  location_changed: '盘点后库位已变动',
};
