import { sql } from 'drizzle-orm';
import { check, date, index, integer, numeric, pgSequence, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { users } from './identity.js';
import { requestColumns, requestConstraints } from './request-columns.js';
import type { StockKind } from './stock.js';

/** Borrow request status values (contract §4); 4 is 已完结 and close_reason tells closed from withdrawn. */
export const BORROW_STATUS = { pending: 0, approved: 1, rejected: 2, dispatched: 3, finished: 4 } as const;
export type BorrowStatus = (typeof BORROW_STATUS)[keyof typeof BORROW_STATUS];

/**
 * A borrow request (spec 3.3): its own table and id space, separate from outbound requests. Lines are
 * allocated and reserved at submission exactly like an outbound request's (items_json, spec 2.4).
 */
export const borrowRequests = pgTable(
  'borrow_requests',
  {
    ...requestColumns<BorrowStatus>('borrow'),
    expectedReturnDate: date('expected_return_date'),
    dispatchedAt: timestamp('dispatched_at', { withTimezone: true }),
  },
  (t) => requestConstraints('borrow_requests', 'borrow', t),
);

export type BorrowRequestRow = typeof borrowRequests.$inferSelect;

/** Numbers the borrow_no of each dispatch (JY<Beijing date><sequence>). */
export const borrowNoSequence = pgSequence('trans_borrow_no_seq', { startWith: 1 });

export const BORROW_LINE_STATUSES = ['borrowed', 'returned', 'scrapped'] as const;
export type BorrowLineStatus = (typeof BORROW_LINE_STATUSES)[number];

/**
 * One borrowed stock row (spec 2.6): dispatch writes one line per scanned row; a split writes a new line
 * on the same row and slip (split_from_id). Material and row fields are snapshots taken at dispatch.
 * While borrowed, quantity − returned_quantity is frozen out of the row's available_quantity.
 * Invariants (checked below): borrowed ⇔ a holder and something unreturned; returned ⇔ no holder and
 * everything back.
 */
export const transBorrow = pgTable(
  'trans_borrow',
  {
    id: serial('id').primaryKey(),
    borrowNo: text('borrow_no').notNull(),
    requestId: integer('request_id')
      .notNull()
      .references(() => borrowRequests.id, { onDelete: 'restrict' }),
    stockId: integer('stock_id').notNull(),
    sourceTable: text('source_table').notNull().$type<StockKind>(),
    baseId: integer('base_id').notNull(),
    sku: text('sku').notNull(),
    materialName: text('material_name').notNull(),
    specModel: text('spec_model').notNull().default(''),
    unit: text('unit').notNull().default(''),
    quantity: numeric('quantity').notNull(),
    /** The quantity the line was created with (dispatch or split): history shows it. */
    initialQuantity: numeric('initial_quantity').notNull(),
    returnedQuantity: numeric('returned_quantity').notNull().default('0'),
    borrowerId: integer('borrower_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    /** Always the user table's name of borrower_id at dispatch (spec 2.6). */
    borrowerName: text('borrower_name').notNull(),
    currentHolderId: integer('current_holder_id').references(() => users.id, { onDelete: 'restrict' }),
    /** Username of who dispatched. */
    dispatchOperator: text('dispatch_operator').notNull(),
    dispatchOperatorId: integer('dispatch_operator_id'),
    location: text('location').notNull().default(''),
    status: text('status').notNull().default('borrowed').$type<BorrowLineStatus>(),
    companyName: text('company_name').notNull(),
    borrowedAt: timestamp('borrowed_at', { withTimezone: true }).notNull(),
    returnedAt: timestamp('returned_at', { withTimezone: true }),
    /** Set on a line created by splitting another: its history continues the parent's up to split_at. */
    splitFromId: integer('split_from_id'),
    splitAt: timestamp('split_at', { withTimezone: true }),
    splitOperator: text('split_operator'),
    splitOperatorId: integer('split_operator_id'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('trans_borrow_no_idx').on(t.borrowNo),
    index('trans_borrow_company_time_idx').on(t.companyName, t.borrowedAt),
    index('trans_borrow_holder_idx').on(t.currentHolderId),
    index('trans_borrow_borrower_idx').on(t.borrowerId),
    index('trans_borrow_stock_idx').on(t.stockId),
    index('trans_borrow_split_from_idx').on(t.splitFromId),
    check('trans_borrow_quantity_positive', sql`${t.quantity} > 0 AND ${t.initialQuantity} > 0`),
    check('trans_borrow_returned_range', sql`${t.returnedQuantity} >= 0 AND ${t.returnedQuantity} <= ${t.quantity}`),
    check('trans_borrow_status', sql`${t.status} IN ('borrowed', 'returned', 'scrapped')`),
    check(
      'trans_borrow_holder',
      sql`(${t.status} = 'borrowed' AND ${t.currentHolderId} IS NOT NULL AND ${t.returnedQuantity} < ${t.quantity})
        OR (${t.status} = 'returned' AND ${t.currentHolderId} IS NULL AND ${t.returnedQuantity} = ${t.quantity})
        OR ${t.status} = 'scrapped'`,
    ),
  ],
);

export type TransBorrowRow = typeof transBorrow.$inferSelect;

/** One return action on a borrow line (spec 2.6): what came back, where to, by whom. */
export const transBorrowReturn = pgTable(
  'trans_borrow_return',
  {
    id: serial('id').primaryKey(),
    borrowId: integer('borrow_id')
      .notNull()
      .references(() => transBorrow.id, { onDelete: 'restrict' }),
    quantity: numeric('quantity').notNull(),
    location: text('location').notNull().default(''),
    remark: text('remark'),
    operator: text('operator').notNull(),
    operatorId: integer('operator_id'),
    companyName: text('company_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('trans_borrow_return_borrow_idx').on(t.borrowId),
    check('trans_borrow_return_quantity_positive', sql`${t.quantity} > 0`),
  ],
);

export type TransBorrowReturnRow = typeof transBorrowReturn.$inferSelect;

export const TRANSFER_STATUSES = ['PENDING', 'ACCEPTED', 'REJECTED'] as const;
export type TransferStatus = (typeof TRANSFER_STATUSES)[number];

/**
 * A holder-to-holder hand-over of one borrow line (spec 3.5). At most one PENDING transfer per line
 * (partial unique index). reject_seen_at null on a REJECTED row: the initiator has not been told yet.
 */
export const transBorrowTransfer = pgTable(
  'trans_borrow_transfer',
  {
    id: serial('id').primaryKey(),
    borrowId: integer('borrow_id')
      .notNull()
      .references(() => transBorrow.id, { onDelete: 'restrict' }),
    fromUserId: integer('from_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    toUserId: integer('to_user_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    quantity: numeric('quantity').notNull(),
    status: text('status').notNull().default('PENDING').$type<TransferStatus>(),
    reason: text('reason'),
    rejectSeenAt: timestamp('reject_seen_at', { withTimezone: true }),
    companyName: text('company_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    decidedAt: timestamp('decided_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('trans_borrow_transfer_one_pending').on(t.borrowId).where(sql`${t.status} = 'PENDING'`),
    index('trans_borrow_transfer_borrow_idx').on(t.borrowId),
    index('trans_borrow_transfer_to_status_idx').on(t.toUserId, t.status),
    index('trans_borrow_transfer_from_status_idx').on(t.fromUserId, t.status),
    check('trans_borrow_transfer_status', sql`${t.status} IN ('PENDING', 'ACCEPTED', 'REJECTED')`),
    check('trans_borrow_transfer_quantity_positive', sql`${t.quantity} > 0`),
    check('trans_borrow_transfer_distinct_users', sql`${t.fromUserId} <> ${t.toUserId}`),
  ],
);

export type TransBorrowTransferRow = typeof transBorrowTransfer.$inferSelect;
