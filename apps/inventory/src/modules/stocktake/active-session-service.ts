import { and, eq, sql } from 'drizzle-orm';
import type { UseCaseContext } from '@wms/platform';
import { stocktakeSessions, SYSTEM_OPERATOR } from '../../db/schema/index.js';
import type { ActiveSessionView } from './schemas.js';
import { companyOfActiveSession, toSessionView } from './sessions.js';

/**
 * GET /draft/active-session (spec 4.6 rule 2): the company's active session or null. scanned counts distinct
 * (source_table, stock_id) and leaves out rows written by `system`. Whose session: companyOfActiveSession.
 */
export async function activeSession(ctx: UseCaseContext, requestedCompany: string | undefined): Promise<ActiveSessionView | null> {
  const [found] = await ctx.read(async (q) => {
    const company = await companyOfActiveSession(q, ctx.actor, requestedCompany);
    if (company === null) return [];
    return q
      .select({
        session: stocktakeSessions,
        // Qualified by hand: inside the sub-select drizzle would leave "id" unqualified (the draft's id).
        scanned: sql<number>`(select count(distinct (d.source_table, d.stock_id))::int from stocktake_drafts d
          where d.session_id = "stocktake_sessions"."id" and d.user_id <> ${SYSTEM_OPERATOR})`,
      })
      .from(stocktakeSessions)
      .where(and(eq(stocktakeSessions.companyName, company), eq(stocktakeSessions.status, 'active')));
  });
  return found ? { ...toSessionView(found.session), scanned: Number(found.scanned) } : null;
}
