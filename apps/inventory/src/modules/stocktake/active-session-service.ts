import { and, eq, sql } from 'drizzle-orm';
import type { UseCaseContext } from '@wms/platform';
import { stocktakeSessions, SYSTEM_OPERATOR } from '../../db/schema/index.js';
import { companyForRead } from '../identity/company-rules.js';
import type { ActiveSessionView } from './schemas.js';
import { toSessionView } from './sessions.js';

/**
 * GET /draft/active-session (spec 4.6 rule 2): the company's active session or null. scanned counts distinct
 * (source_table, stock_id) and leaves out rows written by `system`. Ordinary users see their own company;
 * cross-domain callers name one (400 COMPANY_REQUIRED otherwise: "the" active session needs a company).
 */
export async function activeSession(ctx: UseCaseContext, requestedCompany: string | undefined): Promise<ActiveSessionView | null> {
  const company = companyForRead(ctx.actor, requestedCompany);
  const [found] = await ctx.read((q) =>
    q
      .select({
        session: stocktakeSessions,
        // Qualified by hand: inside the sub-select drizzle would leave "id" unqualified (the draft's id).
        scanned: sql<number>`(select count(distinct (d.source_table, d.stock_id))::int from stocktake_drafts d
          where d.session_id = "stocktake_sessions"."id" and d.user_id <> ${SYSTEM_OPERATOR})`,
      })
      .from(stocktakeSessions)
      .where(and(eq(stocktakeSessions.companyName, company), eq(stocktakeSessions.status, 'active'))),
  );
  return found ? { ...toSessionView(found.session), scanned: Number(found.scanned) } : null;
}
