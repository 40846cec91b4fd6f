import { sql } from 'drizzle-orm';
import { check, date, index, integer, numeric, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './identity.js';
import { materials } from './materials.js';
import { suppliers } from './suppliers.js';

/**
 * Purchase request status values (spec 3.6, contract §4): 3 已完成 is entered only by a stock-in
 * naming the request, 4 已完结 by closing an approved request.
 */
export const PURCHASE_STATUS = { pending: 0, approved: 1, rejected: 2, completed: 3, closed: 4 } as const;
export type PurchaseStatus = (typeof PURCHASE_STATUS)[keyof typeof PURCHASE_STATUS];

/**
 * One purchase request: one material of one submission (spec 2.9). The submission's batch key is the
 * request_no without its last `-<item_seq>` segment; no batch column is stored. The company is the
 * material's. Prices are numeric(12,2), tax_rate a percentage.
 */
export const purchaseRequests = pgTable(
  'purchase_requests',
  {
    id: serial('id').primaryKey(),
    requestNo: text('request_no').notNull(),
    baseId: integer('base_id')
      .notNull()
      .references(() => materials.id, { onDelete: 'restrict' }),
    companyName: text('company_name').notNull(),
    quantity: numeric('quantity').notNull(),
    unitPrice: numeric('unit_price', { precision: 12, scale: 2 }),
    totalPrice: numeric('total_price', { precision: 14, scale: 2 }),
    taxRate: numeric('tax_rate', { precision: 5, scale: 2 }),
    purchaseDate: date('purchase_date').notNull(),
    expectedDate: date('expected_date'),
    supplierId: integer('supplier_id').references(() => suppliers.id, { onDelete: 'restrict' }),
    requesterId: integer('requester_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    requesterEmail: text('requester_email'),
    status: integer('status').notNull().default(0).$type<PurchaseStatus>(),
    remark: text('remark'),
    /** The reason given with a rejection or a closing. */
    decisionReason: text('decision_reason'),
    approverId: integer('approver_id').references(() => users.id, { onDelete: 'restrict' }),
    approvedAt: timestamp('approved_at', { withTimezone: true }),
    rejectedAt: timestamp('rejected_at', { withTimezone: true }),
    closedAt: timestamp('closed_at', { withTimezone: true }),
    /** Set by the stock-in that completed the request (3 已完成). */
    completedAt: timestamp('completed_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('purchase_requests_request_no_unique').on(t.requestNo),
    // prefix searches: the numbers of one day (next batch_seq) and of one batch
    index('purchase_requests_request_no_prefix_idx').on(t.requestNo.op('text_pattern_ops')),
    index('purchase_requests_company_status_idx').on(t.companyName, t.status),
    index('purchase_requests_base_status_idx').on(t.baseId, t.status),
    index('purchase_requests_requester_idx').on(t.requesterId),
    check('purchase_requests_status', sql`${t.status} IN (0, 1, 2, 3, 4)`),
    check('purchase_requests_quantity_positive', sql`${t.quantity} > 0`),
    check('purchase_requests_prices', sql`(${t.unitPrice} IS NULL OR ${t.unitPrice} >= 0) AND (${t.taxRate} IS NULL OR (${t.taxRate} >= 0 AND ${t.taxRate} <= 100))`),
  ],
);

export type PurchaseRequestRow = typeof purchaseRequests.$inferSelect;
