import type { ExportJob } from '@wms/platform';
import { dailyAuditReport } from './daily-report.js';
import { exportAuditLogs } from './export.js';
import type { AuditFilterQuery, DailyReportQuery } from './schemas.js';

const auditLogs: ExportJob<{ query: AuditFilterQuery; cap: number }> = (ctx, { query, cap }) => exportAuditLogs(ctx, query, cap);
const dailyReport: ExportJob<{ query: DailyReportQuery; cap: number }> = (ctx, { query, cap }) => dailyAuditReport(ctx, query, cap);

/**
 * The audit files the export thread builds (platform export-thread; PostgreSQL only): the very functions
 * the routes run in process on PGlite, given a context over the thread's own connection with the
 * caller's actor, company scope and clock. Inputs are the validated query strings and the cap.
 */
export const exportJobs = { auditLogs, dailyReport };

export type AuditExportJobs = typeof exportJobs;
