import { sql } from 'drizzle-orm';
import { check, index, integer, numeric, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { transOutbound } from './outbound.js';
import type { StockKind } from './stock.js';

export const RETURN_TYPES = ['good', 'defective'] as const;
export type ReturnType = (typeof RETURN_TYPES)[number];

/**
 * One return of goods from an executed outbound line (spec 2.7). Company, material and outbound fields
 * are snapshots taken at return time: isolation and the listing never depend on joins, since the
 * original stock row may be deleted later.
 */
export const transReturn = pgTable(
  'trans_return',
  {
    id: serial('id').primaryKey(),
    /** The trans_outbound line the goods came back from. */
    outboundId: integer('outbound_id')
      .notNull()
      .references(() => transOutbound.id, { onDelete: 'restrict' }),
    returnType: text('return_type').notNull().$type<ReturnType>(),
    quantity: numeric('quantity').notNull(),
    reason: text('reason').notNull().default(''),
    operator: text('operator').notNull(),
    operatorId: integer('operator_id'),
    companyName: text('company_name').notNull(),
    outboundNo: text('outbound_no').notNull(),
    stockId: integer('stock_id').notNull(),
    sourceTable: text('source_table').notNull().$type<StockKind>(),
    baseId: integer('base_id').notNull(),
    sku: text('sku').notNull(),
    materialName: text('material_name').notNull(),
    specModel: text('spec_model').notNull().default(''),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('trans_return_outbound_idx').on(t.outboundId),
    index('trans_return_company_time_idx').on(t.companyName, t.createdAt),
    check('trans_return_quantity_positive', sql`${t.quantity} > 0`),
    check('trans_return_type', sql`${t.returnType} IN ('good', 'defective')`),
  ],
);

export type TransReturnRow = typeof transReturn.$inferSelect;

export const DEFECTIVE_STATUSES = ['待处理', '已退回库存', '已报废'] as const;
export type DefectiveStatus = (typeof DEFECTIVE_STATUSES)[number];

/**
 * The in-custody ledger of defective goods (spec 2.7, 3.8). An entry is its own physical item: its sku is
 * copied from the original stock row, and its quantity never counts as allocatable stock. stock_id keeps
 * the original row for restock (no foreign key: the row may be deleted meanwhile).
 * Invariant: status is 待处理 exactly while remaining_qty > 0; the action that brings it to 0 names the end
 * state (已退回库存 by restock, 已报废 by scrap).
 */
export const transDefectiveGoods = pgTable(
  'trans_defective_goods',
  {
    id: serial('id').primaryKey(),
    returnId: integer('return_id')
      .notNull()
      .references(() => transReturn.id, { onDelete: 'restrict' }),
    sku: text('sku').notNull(),
    stockId: integer('stock_id').notNull(),
    sourceTable: text('source_table').notNull().$type<StockKind>(),
    baseId: integer('base_id').notNull(),
    materialName: text('material_name').notNull(),
    specModel: text('spec_model').notNull().default(''),
    quantity: numeric('quantity').notNull(),
    remainingQty: numeric('remaining_qty').notNull(),
    status: text('status').notNull().default('待处理').$type<DefectiveStatus>(),
    companyName: text('company_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('trans_defective_goods_company_status_idx').on(t.companyName, t.status),
    index('trans_defective_goods_sku_idx').on(t.sku),
    check('trans_defective_goods_quantity_positive', sql`${t.quantity} > 0`),
    check('trans_defective_goods_remaining_range', sql`${t.remainingQty} >= 0 AND ${t.remainingQty} <= ${t.quantity}`),
    check('trans_defective_goods_status', sql`${t.status} IN ('待处理', '已退回库存', '已报废')`),
    check('trans_defective_goods_status_matches_remaining', sql`(${t.status} = '待处理') = (${t.remainingQty} > 0)`),
  ],
);

export type DefectiveGoodsRow = typeof transDefectiveGoods.$inferSelect;
