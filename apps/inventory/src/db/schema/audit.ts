import { index, pgTable, text } from 'drizzle-orm/pg-core';
import { auditLogColumns } from '@wms/platform/db-schema';

/**
 * Written only by the audit triggers (each table's generated audit_<table>_capture(), made by audit_attach()), in the same transaction as the change.
 * details holds one of created / deleted_snapshot / payload, plus changes for UPDATE.
 */
export const auditLogs = pgTable(
  'audit_logs',
  auditLogColumns({ companyName: text('company_name') }),
  (t) => [index('audit_logs_company_time_idx').on(t.companyName, t.createdAt), index('audit_logs_module_idx').on(t.module)],
);
