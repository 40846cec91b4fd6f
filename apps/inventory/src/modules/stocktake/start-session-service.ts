import { and, count, eq, sql } from 'drizzle-orm';
import type { UseCaseContext } from '@wms/platform';
import { stocktakeDrafts, stocktakeSessions } from '../../db/schema/index.js';
import { companyForRecord } from '../identity/company-rules.js';
import type { StartSessionBody, StartSessionResult } from './schemas.js';
import { frozenScope } from './scope.js';
import { toSessionView } from './sessions.js';

/**
 * POST /draft/start-new (spec 3.9, 4.6 rule 1): a new active session for the company; the company's earlier
 * active session is finished (superseded) in the same transaction and its drafts are kept. Start-new calls
 * of one company run one after another under a transaction-level advisory lock, so parallel calls leave
 * exactly one active session (each later call supersedes the earlier); the partial unique index
 * stocktake_sessions_one_active_per_company is the backstop. superseded_count is the number of drafts in
 * the session the new one replaced.
 */
export async function startNewSession(ctx: UseCaseContext, input: StartSessionBody): Promise<StartSessionResult> {
  const scope = frozenScope(input.scope_type, input.scope_config?.locations);
  return ctx.transaction(async (tx) => {
    const company = await companyForRecord(tx, ctx.actor, input.company_name);
    await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${`stocktake_session:${company}`}))`);
    const [previous] = await tx
      .update(stocktakeSessions)
      .set({ status: 'finished', finishedAt: ctx.now, finishReason: 'superseded', updatedAt: ctx.now })
      .where(and(eq(stocktakeSessions.companyName, company), eq(stocktakeSessions.status, 'active')))
      .returning({ id: stocktakeSessions.id });
    const [session] = await tx
      .insert(stocktakeSessions)
      .values({
        companyName: company,
        mode: input.mode,
        scopeType: scope.scopeType,
        scopeConfig: scope.config,
        status: 'active',
        initiatorId: ctx.actor.id,
        initiatorName: ctx.actor.name,
        startedAt: ctx.now,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    let supersededCount = 0;
    if (previous) {
      await tx.update(stocktakeSessions).set({ supersededById: session!.id }).where(eq(stocktakeSessions.id, previous.id));
      const [drafts] = await tx.select({ n: count() }).from(stocktakeDrafts).where(eq(stocktakeDrafts.sessionId, previous.id));
      supersededCount = drafts?.n ?? 0;
    }
    return { ...toSessionView(session!), superseded_count: supersededCount, superseded_session_id: previous?.id ?? null };
  });
}
