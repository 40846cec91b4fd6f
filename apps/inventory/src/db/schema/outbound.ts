import { sql } from 'drizzle-orm';
import { check, index, integer, numeric, pgSequence, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { requestColumns, requestConstraints } from './request-columns.js';
import type { StockKind } from './stock.js';

export const OUTBOUND_TYPES = ['SALES', 'USE', 'PRODUCTION'] as const;
export type OutboundType = (typeof OUTBOUND_TYPES)[number];

/** Request status values (contract §4); 4 is 已完结 and close_reason tells closed from withdrawn. */
export const OUTBOUND_STATUS = { pending: 0, approved: 1, rejected: 2, executed: 3, finished: 4 } as const;
export type OutboundStatus = (typeof OUTBOUND_STATUS)[keyof typeof OUTBOUND_STATUS];

export { CLOSE_REASONS, type CloseReason } from './request-columns.js';

export const outboundRequests = pgTable(
  'outbound_requests',
  {
    ...requestColumns<OutboundStatus>('outbound'),
    outboundType: text('outbound_type').notNull().$type<OutboundType>(),
    /** Set only on a reissue created from a return; the one marker of a reissue (spec 2.4). */
    sourceReturnId: integer('source_return_id'),
    executedAt: timestamp('executed_at', { withTimezone: true }),
  },
  (t) => [
    ...requestConstraints('outbound_requests', 'outbound', t),
    check('outbound_requests_type', sql`${t.outboundType} IN ('SALES', 'USE', 'PRODUCTION')`),
  ],
);

export type OutboundRequestRow = typeof outboundRequests.$inferSelect;

/** Numbers the outbound_no of each execution (CK<Beijing date><sequence>). */
export const outboundNoSequence = pgSequence('trans_outbound_no_seq', { startWith: 1 });

/**
 * One executed line (spec 2.5). Material and row fields are snapshots taken at execution, so the
 * listing never depends on rows that stock maintenance may later delete.
 */
export const transOutbound = pgTable(
  'trans_outbound',
  {
    id: serial('id').primaryKey(),
    outboundNo: text('outbound_no').notNull(),
    requestId: integer('request_id')
      .notNull()
      .references(() => outboundRequests.id, { onDelete: 'restrict' }),
    /** Copied from the request; nullable because rows from before this column existed stay null. */
    applicantId: integer('applicant_id'),
    consumerName: text('consumer_name').notNull().default(''),
    outboundType: text('outbound_type').notNull().$type<OutboundType>(),
    outboundTime: timestamp('outbound_time', { withTimezone: true }).notNull().defaultNow(),
    stockId: integer('stock_id').notNull(),
    sourceTable: text('source_table').notNull().$type<StockKind>(),
    baseId: integer('base_id').notNull(),
    sku: text('sku').notNull(),
    materialName: text('material_name').notNull(),
    specModel: text('spec_model').notNull().default(''),
    unit: text('unit').notNull().default(''),
    batchNumber: text('batch_number'),
    serialNumber: text('serial_number'),
    quantity: numeric('quantity').notNull(),
    warehouseLocation: text('warehouse_location').notNull().default(''),
    operator: text('operator').notNull(),
    operatorId: integer('operator_id'),
    companyName: text('company_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('trans_outbound_no_idx').on(t.outboundNo),
    index('trans_outbound_request_idx').on(t.requestId),
    index('trans_outbound_company_time_idx').on(t.companyName, t.outboundTime),
    check('trans_outbound_quantity_positive', sql`${t.quantity} > 0`),
    check('trans_outbound_type', sql`${t.outboundType} IN ('SALES', 'USE', 'PRODUCTION')`),
  ],
);

export type TransOutboundRow = typeof transOutbound.$inferSelect;
