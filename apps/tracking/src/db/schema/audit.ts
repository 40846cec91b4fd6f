import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Written only by the audit_capture() trigger (migration 0001), in the same transaction as the change.
 * `username` is the actor label: the logged-in account, the notification's operator, or 'system'.
 * details holds one of created / deleted_snapshot, plus changes for UPDATE.
 */
export const auditLogs = pgTable(
  'audit_logs',
  {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    module: text('module').notNull(),
    action: text('action').notNull(),
    tableName: text('table_name').notNull(),
    targetId: text('target_id'),
    targetName: text('target_name'),
    username: text('username').notNull(),
    department: text('department'),
    requestUrl: text('request_url'),
    details: jsonb('details').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_logs_time_idx').on(t.createdAt), index('audit_logs_module_idx').on(t.module)],
);
