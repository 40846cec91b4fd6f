import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, numeric, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import type { StockKind } from './stock.js';

/**
 * One move of stock between locations: a whole row (to_stock_id = stock_id) or a part split off into a
 * new row (to_stock_id, to_sku name it). Company, sku and locations are snapshots, so the history stays
 * readable after a row is deleted; no foreign key to stock_rows for the same reason.
 */
export const stockMoves = pgTable(
  'stock_moves',
  {
    id: serial('id').primaryKey(),
    stockId: integer('stock_id').notNull(),
    toStockId: integer('to_stock_id').notNull(),
    sourceTable: text('source_table').notNull().$type<StockKind>(),
    sku: text('sku').notNull(),
    toSku: text('to_sku').notNull(),
    baseId: integer('base_id').notNull(),
    companyName: text('company_name').notNull(),
    fromLocation: text('from_location').notNull(),
    toLocation: text('to_location').notNull(),
    quantity: numeric('quantity').notNull(),
    whole: boolean('whole').notNull(),
    operator: text('operator').notNull(),
    operatorName: text('operator_name').notNull(),
    operatorId: integer('operator_id'),
    movedAt: timestamp('moved_at', { withTimezone: true }).notNull(),
  },
  (t) => [
    index('stock_moves_stock_idx').on(t.stockId),
    index('stock_moves_to_stock_idx').on(t.toStockId),
    index('stock_moves_company_time_idx').on(t.companyName, t.movedAt),
    check('stock_moves_quantity', sql`${t.quantity} >= 0`),
  ],
);

export type StockMoveRow = typeof stockMoves.$inferSelect;
