import { bigserial, index, jsonb, pgTable, text, timestamp } from 'drizzle-orm/pg-core';

/**
 * Written only by the audit_capture() trigger (migration 0001), in the same transaction as the change.
 * details holds one of created / deleted_snapshot / payload, plus changes for UPDATE.
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
    companyName: text('company_name'),
    requestUrl: text('request_url'),
    details: jsonb('details').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('audit_logs_company_time_idx').on(t.companyName, t.createdAt), index('audit_logs_module_idx').on(t.module)],
);
