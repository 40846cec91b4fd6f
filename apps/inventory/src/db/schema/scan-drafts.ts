import { index, integer, jsonb, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const SCAN_DRAFT_BIZ_TYPES = ['outbound', 'borrow', 'scrap', 'purchase', 'stocktake'] as const;
export type ScanDraftBizType = (typeof SCAN_DRAFT_BIZ_TYPES)[number];

/**
 * A handheld's unfinished scan list (spec 2.11): one per (user, biz_type, request), replaced whole on
 * every save, deleted by an empty save or after the scans were submitted. It has no stock effect, so it
 * is scratch state of one user, not a business record: no audit trigger (decisions, Scan drafts).
 */
export const scanDrafts = pgTable(
  'scan_drafts',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').notNull(),
    bizType: text('biz_type').notNull().$type<ScanDraftBizType>(),
    requestId: text('request_id').notNull(),
    itemsJson: jsonb('items_json').notNull().$type<Array<Record<string, unknown>>>(),
    companyName: text('company_name'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('scan_drafts_owner_request_unique').on(t.userId, t.bizType, t.requestId),
    index('scan_drafts_user_updated_idx').on(t.userId, t.updatedAt),
  ],
);

export type ScanDraftRow = typeof scanDrafts.$inferSelect;
