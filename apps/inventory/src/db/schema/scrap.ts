import { sql } from 'drizzle-orm';
import { check, index, integer, jsonb, numeric, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './identity.js';
import { requestColumns, requestConstraints } from './request-columns.js';

/** Scrap request status values (contract §4); 4 is withdrawn (close_reason 'withdrawn'). */
export const SCRAP_STATUS = { pending: 0, approved: 1, rejected: 2, executed: 3, finished: 4 } as const;
export type ScrapStatus = (typeof SCRAP_STATUS)[keyof typeof SCRAP_STATUS];

/** Where a scrapped unit comes from (spec 2.8): a stock row, a borrowed line or a ledger entry. */
export const SCRAP_SOURCES = ['stock_buy', 'stock_semi', 'stock_product', 'trans_borrow', 'trans_defective_goods'] as const;
export type ScrapSource = (typeof SCRAP_SOURCES)[number];

/** scan: executed by scanning the barcode (stock rows); auto: executed by the approved quantity. */
export const SCRAP_MODES = ['scan', 'auto'] as const;
export type ScrapMode = (typeof SCRAP_MODES)[number];

/** contract §8; records older than the category column have none and count as 库存报废. */
export const REASON_CATEGORIES = ['库存报废', '借用报废', '不良品报废', '生产报废'] as const;
export type ReasonCategory = (typeof REASON_CATEGORIES)[number];

/**
 * One line of a scrap request (spec 2.8 items_json: scrap_qty, location, source_table, stock_id).
 * `quantity` is the scrap_qty (the name every reserving line uses, so the shared release reads it);
 * stock_id is the stock row's, the borrow line's or the ledger entry's own id, as source_table says.
 * Only stock-row lines reserve (reserved true until a decision or the execution releases them).
 */
export interface ScrapLine {
  source_table: ScrapSource;
  stock_id: number;
  base_id: number;
  quantity: string;
  location: string;
  reserved: boolean;
}

/**
 * A scrap request (spec 2.8, 3.7): the shared request columns plus its one mode, the reason, who may
 * approve it (allowed_approvers, contract §4; empty = nobody) and, for production scrap, the external
 * track_ref (unique). Executed once, from status 1.
 */
export const scrapRequests = pgTable(
  'scrap_requests',
  {
    ...requestColumns<ScrapStatus>('scrap'),
    itemsJson: jsonb('items_json').notNull().$type<ScrapLine[]>(),
    mode: text('mode').notNull().$type<ScrapMode>(),
    reason: text('reason').notNull(),
    reasonCategory: text('reason_category').notNull().$type<ReasonCategory>(),
    allowedApprovers: integer('allowed_approvers').array().notNull(),
    trackRef: text('track_ref'),
    executorId: integer('executor_id').references(() => users.id, { onDelete: 'restrict' }),
    executedAt: timestamp('executed_at', { withTimezone: true }),
  },
  (t) => [
    ...requestConstraints('scrap_requests', 'scrap', t),
    uniqueIndex('scrap_requests_track_ref_unique').on(t.trackRef),
    check('scrap_requests_mode', sql`${t.mode} IN ('scan', 'auto')`),
    check('scrap_requests_reason_category', sql`${t.reasonCategory} IN ('库存报废', '借用报废', '不良品报废', '生产报废')`),
  ],
);

export type ScrapRequestRow = typeof scrapRequests.$inferSelect;

/**
 * One scrapped unit (spec 2.8 TransScrap), written by the execution: what left the books, from where,
 * at what cost (cost_at_scrap: the row's unit_cost, else the material's referencePrice, else 0;
 * total_loss = cost × quantity, contract §8). Material and source fields are snapshots.
 * reason_category is nullable: records from before the column existed have none (库存报废).
 */
export const transScrap = pgTable(
  'trans_scrap',
  {
    id: serial('id').primaryKey(),
    requestId: integer('request_id').references(() => scrapRequests.id, { onDelete: 'restrict' }),
    sourceTable: text('source_table').notNull().$type<ScrapSource>(),
    stockId: integer('stock_id').notNull(),
    baseId: integer('base_id').notNull(),
    sku: text('sku').notNull(),
    materialName: text('material_name').notNull(),
    specModel: text('spec_model').notNull().default(''),
    unit: text('unit').notNull().default(''),
    quantity: numeric('quantity').notNull(),
    costAtScrap: numeric('cost_at_scrap', { precision: 12, scale: 2 }).notNull(),
    totalLoss: numeric('total_loss', { precision: 14, scale: 2 }).notNull(),
    reason: text('reason').notNull().default(''),
    reasonCategory: text('reason_category').$type<ReasonCategory>(),
    trackRef: text('track_ref'),
    location: text('location').notNull().default(''),
    applicantId: integer('applicant_id'),
    operator: text('operator').notNull(),
    operatorId: integer('operator_id'),
    companyName: text('company_name').notNull(),
    scrappedAt: timestamp('scrapped_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('trans_scrap_company_time_idx').on(t.companyName, t.scrappedAt),
    index('trans_scrap_request_idx').on(t.requestId),
    uniqueIndex('trans_scrap_track_ref_unique').on(t.trackRef),
    check('trans_scrap_quantity_positive', sql`${t.quantity} > 0`),
    check('trans_scrap_cost_non_negative', sql`${t.costAtScrap} >= 0 AND ${t.totalLoss} >= 0`),
    check(
      'trans_scrap_source',
      sql`${t.sourceTable} IN ('stock_buy', 'stock_semi', 'stock_product', 'trans_borrow', 'trans_defective_goods')`,
    ),
  ],
);

export type TransScrapRow = typeof transScrap.$inferSelect;
