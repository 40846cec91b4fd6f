import { sql } from 'drizzle-orm';
import { boolean, check, index, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

export const INVENTORY_NOTICE_KINDS = ['stock-in', 'outbound'] as const;
export type InventoryNoticeKind = (typeof INVENTORY_NOTICE_KINDS)[number];

/**
 * One row per processed inventory notification (spec 4.1, contract §5), written in the transaction that
 * applied it. The event_id primary key makes a redelivery harmless: a second delivery finds the row and
 * changes nothing. Ignored messages (another department) are not recorded. The audit trigger on this
 * table gives every processed message an audit entry attributed to its operator, matched or not.
 */
export const integrationEvents = pgTable(
  'integration_events',
  {
    eventId: text('event_id').primaryKey(),
    kind: text('kind').$type<InventoryNoticeKind>().notNull(),
    /** What the message was about: the serial number (or sku) of a stock-in, the outbound_no of an outbound. */
    reference: text('reference').notNull().default(''),
    /** The operator as sent (the audit actor is its display label). */
    operator: text('operator'),
    /** Whether the message changed a product. */
    matched: boolean('matched').notNull(),
    receivedAt: timestamp('received_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('integration_events_received_idx').on(t.receivedAt),
    check('integration_events_kind_valid', sql`${t.kind} in ('stock-in', 'outbound')`),
  ],
);

export type IntegrationEventRow = typeof integrationEvents.$inferSelect;
