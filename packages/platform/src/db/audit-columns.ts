import { bigserial, jsonb, text, timestamp, type PgColumnBuilderBase } from 'drizzle-orm/pg-core';

/**
 * The columns of `audit_logs`, which only the audit triggers write (audit_attach(); decision Platform 8).
 * `placement` is the service's own column (company or department), kept in its place after `username`
 * so the generated tables and migrations do not change. Fresh builders on every call: one per table.
 */
export function auditLogColumns<T extends Record<string, PgColumnBuilderBase>>(placement: T) {
  return {
    id: bigserial('id', { mode: 'number' }).primaryKey(),
    module: text('module').notNull(),
    action: text('action').notNull(),
    tableName: text('table_name').notNull(),
    targetId: text('target_id'),
    targetName: text('target_name'),
    username: text('username').notNull(),
    ...placement,
    requestUrl: text('request_url'),
    details: jsonb('details').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  };
}
