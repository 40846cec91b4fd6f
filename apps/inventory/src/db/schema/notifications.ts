import { sql } from 'drizzle-orm';
import { bigserial, check, index, integer, jsonb, pgTable, text, timestamp, uuid } from 'drizzle-orm/pg-core';
import { materials } from './materials.js';

export const NOTIFICATION_KINDS = ['stock-in', 'outbound'] as const;
export type NotificationKind = (typeof NOTIFICATION_KINDS)[number];

export const OUTBOX_STATUSES = ['pending', 'delivered', 'failed'] as const;
export type OutboxStatus = (typeof OUTBOX_STATUSES)[number];

/**
 * Messages for the production-tracking service (contract §5), written in the same transaction as the
 * stock change they announce, delivered after commit by a dispatcher. A technical table: no audit trigger.
 * event_id is also inside the payload; the receiver uses it to make a redelivery harmless.
 */
export const notificationOutbox = pgTable(
  'notification_outbox',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    eventId: uuid('event_id').notNull().unique('notification_outbox_event_id_unique'),
    kind: text('kind').notNull().$type<NotificationKind>(),
    payload: jsonb('payload').notNull().$type<Record<string, unknown>>(),
    status: text('status').notNull().default('pending').$type<OutboxStatus>(),
    attempts: integer('attempts').notNull().default(0),
    nextAttemptAt: timestamp('next_attempt_at', { withTimezone: true }).notNull().defaultNow(),
    lastError: text('last_error'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    deliveredAt: timestamp('delivered_at', { withTimezone: true }),
  },
  (t) => [
    index('notification_outbox_due_idx').on(t.status, t.nextAttemptAt),
    check('notification_outbox_kind', sql`${t.kind} IN ('stock-in', 'outbound')`),
    check('notification_outbox_status', sql`${t.status} IN ('pending', 'delivered', 'failed')`),
  ],
);

export type NotificationOutboxRow = typeof notificationOutbox.$inferSelect;

export const MAIL_KINDS = ['low_stock', 'purchase_submitted', 'purchase_decided'] as const;
export type MailKind = (typeof MAIL_KINDS)[number];

/**
 * Every mail the service sends (contract §1 SMTP_URL). Without SMTP_URL the row is the delivery; with it
 * the row records what was handed to the SMTP server (sent_at) or why that failed (error); attempts
 * counts the hand-overs (a failed mail can be retried). Rows from before `kind` existed are low-stock
 * mails, hence the default. A technical table: no audit trigger.
 */
export const mailOutbox = pgTable('mail_outbox', {
  id: bigserial('id', { mode: 'number' }).primaryKey(),
  kind: text('kind').notNull().default('low_stock').$type<MailKind>(),
  toAddresses: text('to_addresses').array().notNull(),
  subject: text('subject').notNull(),
  body: text('body').notNull(),
  createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  sentAt: timestamp('sent_at', { withTimezone: true }),
  error: text('error'),
  attempts: integer('attempts').notNull().default(0),
});

export type MailOutboxRow = typeof mailOutbox.$inferSelect;

export const ALERT_LEVELS = ['yellow', 'red'] as const;
export type AlertLevel = (typeof ALERT_LEVELS)[number];

/**
 * The low-stock level a material was last alerted at (contract §8: one mail per crossing). A crossing to a
 * more severe level claims the row with a guarded upsert, so concurrent checks send one mail; the level
 * comes down (no mail) when supply rises again. level null = not alerted.
 */
export const materialStockAlerts = pgTable(
  'material_stock_alerts',
  {
    baseId: integer('base_id')
      .primaryKey()
      .references(() => materials.id, { onDelete: 'cascade' }),
    level: text('level').$type<AlertLevel>(),
    alertedAt: timestamp('alerted_at', { withTimezone: true }),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [check('material_stock_alerts_level', sql`${t.level} IS NULL OR ${t.level} IN ('yellow', 'red')`)],
);

export type MaterialStockAlertRow = typeof materialStockAlerts.$inferSelect;
