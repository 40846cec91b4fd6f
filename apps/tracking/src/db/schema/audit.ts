import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { auditLogColumns } from '@wms/platform/db-schema';

/**
 * Written only by the audit triggers (each table's generated audit_<table>_capture(), made by audit_attach()), in the same transaction as the change.
 * `username` is the actor label: the logged-in account, the notification's operator, or 'system'.
 * details holds one of created / deleted_snapshot, plus changes for UPDATE.
 */
export const auditLogs = pgTable(
  'audit_logs',
  auditLogColumns({ department: text('department') }),
  (t) => [index('audit_logs_time_idx').on(t.createdAt), index('audit_logs_module_idx').on(t.module)],
);
