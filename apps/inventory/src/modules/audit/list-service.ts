import { and, count, desc, eq, sql } from 'drizzle-orm';
import { companyCondition, notFound, pageOf, pagingOf, type Page, type UseCaseContext } from '@wms/platform';
import { auditLogs } from '../../db/schema/index.js';
import { auditFilterOf } from './filters.js';
import { hiddenColumnsOf } from './field-codes.js';
import { auditViewsOf } from './log-views.js';
import { moduleOptions } from './modules.js';
import type { AuditLogQuery, AuditLogView } from './schemas.js';

/** Newest first: the order of capture (ids grow with every write), which export and daily report share. */
export const NEWEST_FIRST = desc(auditLogs.id);

/**
 * GET /audit/logs (spec 4.8): one page in the database, the page's user and material names in one
 * lookup, every view built by the response rules of spec 2.12.
 */
export function listAuditLogs(ctx: UseCaseContext, query: AuditLogQuery): Promise<Page<AuditLogView>> {
  const paging = pagingOf(query);
  const { where } = auditFilterOf(ctx, query);
  return ctx.read(async (q) => {
    const rows = await q.select().from(auditLogs).where(where).orderBy(NEWEST_FIRST).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(auditLogs).where(where);
    return pageOf(await auditViewsOf(q, rows, hiddenColumnsOf(ctx.actor)), total?.n ?? 0, paging);
  });
}

/** GET /audit/logs/<id>: the list's company rule; missing and not permitted are the same 404. */
export function getAuditLog(ctx: UseCaseContext, id: number): Promise<AuditLogView> {
  return ctx.read(async (q) => {
    const rows = await q
      .select()
      .from(auditLogs)
      .where(and(eq(auditLogs.id, id), companyCondition(ctx.scope(), auditLogs.companyName)));
    if (rows.length === 0) throw notFound('审计记录');
    const [view] = await auditViewsOf(q, rows, hiddenColumnsOf(ctx.actor));
    return view!;
  });
}

/** GET /audit/modules: the modules present in the caller's company's records, the 入库 group as one option. */
export async function listAuditModules(ctx: UseCaseContext, company?: string): Promise<Array<{ value: string; label: string }>> {
  const rows = await ctx.read((q) =>
    q
      .selectDistinct({ module: auditLogs.module })
      .from(auditLogs)
      .where(companyCondition(ctx.scope(company), auditLogs.companyName))
      .orderBy(sql`1`),
  );
  return moduleOptions(rows.map((row) => row.module));
}
