import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, jsonb, numeric, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './identity.js';
import type { StockKind } from './stock.js';

export const STOCKTAKE_MODES = ['blind', 'open'] as const;
export type StocktakeMode = (typeof STOCKTAKE_MODES)[number];

export const STOCKTAKE_SCOPES = ['full', 'active'] as const;
export type StocktakeScopeType = (typeof STOCKTAKE_SCOPES)[number];

export const SESSION_STATUSES = ['active', 'finished'] as const;
export type SessionStatus = (typeof SESSION_STATUSES)[number];

/** completed: generate-missing closed it; superseded: a later start-new of the company replaced it. */
export type FinishReason = 'completed' | 'superseded';

/** The operator name of generated rows (spec 2.10, contract §8). */
export const SYSTEM_OPERATOR = 'system';

export interface ScopeConfig {
  locations: string[];
}

/**
 * A stocktake session (spec 2.10, 3.9). scope_config is frozen at creation. At most one active session
 * per company: the partial unique index is the backstop of start-new's per-company lock.
 */
export const stocktakeSessions = pgTable(
  'stocktake_sessions',
  {
    id: serial('id').primaryKey(),
    companyName: text('company_name').notNull(),
    mode: text('mode').notNull().$type<StocktakeMode>(),
    scopeType: text('scope_type').notNull().$type<StocktakeScopeType>(),
    scopeConfig: jsonb('scope_config').notNull().$type<ScopeConfig>(),
    status: text('status').notNull().default('active').$type<SessionStatus>(),
    initiatorId: integer('initiator_id').references(() => users.id, { onDelete: 'restrict' }),
    initiatorName: text('initiator_name').notNull(),
    startedAt: timestamp('started_at', { withTimezone: true }).notNull(),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    finishReason: text('finish_reason').$type<FinishReason>(),
    supersededById: integer('superseded_by_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('stocktake_sessions_one_active_per_company').on(t.companyName).where(sql`${t.status} = 'active'`),
    index('stocktake_sessions_company_idx').on(t.companyName, t.startedAt),
    check('stocktake_sessions_mode', sql`${t.mode} IN ('blind', 'open')`),
    check('stocktake_sessions_scope_type', sql`${t.scopeType} IN ('full', 'active')`),
    check('stocktake_sessions_status', sql`${t.status} IN ('active', 'finished')`),
    check(
      'stocktake_sessions_finished',
      sql`(${t.status} = 'active' AND ${t.finishedAt} IS NULL) OR (${t.status} = 'finished' AND ${t.finishedAt} IS NOT NULL AND ${t.finishReason} IN ('completed', 'superseded'))`,
    ),
  ],
);

export type StocktakeSessionRow = typeof stocktakeSessions.$inferSelect;

/**
 * One counted item per session (spec 2.10): unique (session_id, uuid) where uuid is the row's sku, so
 * parallel scans of one item upsert one row. user_id is the display name of the last operator, or
 * `system` for rows generate-missing wrote. book_quantity / book_location are the stock row's book when
 * it was counted: a book that differs now moved after the count (the count needs a recount or force).
 * adjusted_at / adjusted_from: /adjust applied this count, moving the book from adjusted_from.
 */
export const stocktakeDrafts = pgTable(
  'stocktake_drafts',
  {
    id: serial('id').primaryKey(),
    sessionId: integer('session_id')
      .notNull()
      .references(() => stocktakeSessions.id, { onDelete: 'restrict' }),
    uuid: text('uuid').notNull(),
    stockId: integer('stock_id').notNull(),
    sourceTable: text('source_table').notNull().$type<StockKind>(),
    baseId: integer('base_id').notNull(),
    userId: text('user_id').notNull(),
    operatorId: integer('operator_id'),
    quantity: numeric('quantity').notNull(),
    remark: text('remark'),
    scanTime: timestamp('scan_time', { withTimezone: true }).notNull(),
    companyName: text('company_name').notNull(),
    bookQuantity: numeric('book_quantity').notNull(),
    bookLocation: text('book_location').notNull(),
    adjustedAt: timestamp('adjusted_at', { withTimezone: true }),
    adjustedFrom: numeric('adjusted_from'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('stocktake_drafts_session_item_unique').on(t.sessionId, t.uuid),
    index('stocktake_drafts_session_stock_idx').on(t.sessionId, t.stockId),
    check('stocktake_drafts_quantity', sql`${t.quantity} >= 0`),
  ],
);

export type StocktakeDraftRow = typeof stocktakeDrafts.$inferSelect;

/** One applied stocktake adjustment (POST /adjust): the book before and after, and whether it was forced. */
export const stocktakeAdjustments = pgTable(
  'stocktake_adjustments',
  {
    id: serial('id').primaryKey(),
    sessionId: integer('session_id')
      .notNull()
      .references(() => stocktakeSessions.id, { onDelete: 'restrict' }),
    draftId: integer('draft_id')
      .notNull()
      .references(() => stocktakeDrafts.id, { onDelete: 'restrict' }),
    stockId: integer('stock_id').notNull(),
    sourceTable: text('source_table').notNull().$type<StockKind>(),
    sku: text('sku').notNull(),
    baseId: integer('base_id').notNull(),
    companyName: text('company_name').notNull(),
    beforeQuantity: numeric('before_quantity').notNull(),
    afterQuantity: numeric('after_quantity').notNull(),
    difference: numeric('difference').notNull(),
    forced: boolean('forced').notNull().default(false),
    operator: text('operator').notNull(),
    operatorId: integer('operator_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('stocktake_adjustments_session_idx').on(t.sessionId), index('stocktake_adjustments_stock_idx').on(t.stockId)],
);
