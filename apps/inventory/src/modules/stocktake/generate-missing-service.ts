import { and, eq, sql } from 'drizzle-orm';
import { queryRows, type UseCaseContext } from '@wms/platform';
import { stocktakeSessions, SYSTEM_OPERATOR } from '../../db/schema/index.js';
import { scopeCondition } from './scope.js';
import { assertActive, lockSession } from './sessions.js';

/**
 * POST /stocktake/generate-missing (spec 3.9, contract §8): every row of the scope with stock that has no
 * count gets a zero-quantity draft written as `system`, in one INSERT … SELECT, and the session is finished.
 * The exclusive session lock waits for counts in flight and keeps new ones out.
 */
export async function generateMissing(ctx: UseCaseContext, sessionId: number) {
  return ctx.transaction(async (tx) => {
    const session = await lockSession(tx, ctx.scope(), sessionId, 'update');
    assertActive(session);
    const scope = scopeCondition(session, sql.raw('s.warehouse_location'));
    const now = ctx.now.toISOString();
    const [result] = await queryRows<{ generated: number; counted: number; total: number }>(
      tx,
      sql`with generated as (
            insert into stocktake_drafts (session_id, uuid, stock_id, source_table, base_id, user_id, operator_id, quantity, remark,
              scan_time, company_name, book_quantity, book_location, created_at, updated_at)
            select ${session.id}, s.sku, s.id, s.source_table, s.base_id, ${SYSTEM_OPERATOR}, null, 0, null,
                   ${now}::timestamptz, m.company_name, s.stock_quantity, s.warehouse_location, ${now}::timestamptz, ${now}::timestamptz
              from stock_rows s join materials m on m.id = s.base_id
             where m.company_name = ${session.companyName} and s.stock_quantity > 0 ${scope ? sql`and ${scope}` : sql``}
               and not exists (select 1 from stocktake_drafts d where d.session_id = ${session.id} and d.stock_id = s.id)
            on conflict (session_id, uuid) do nothing
            returning 1
          )
          select (select count(*) from generated)::int as generated,
                 (select count(*) from stocktake_drafts d where d.session_id = ${session.id} and d.user_id <> ${SYSTEM_OPERATOR})::int as counted,
                 (select count(*) from stocktake_drafts d where d.session_id = ${session.id})::int + (select count(*) from generated)::int as total`,
    );
    await tx
      .update(stocktakeSessions)
      .set({ status: 'finished', finishedAt: ctx.now, finishReason: 'completed', updatedAt: ctx.now })
      .where(and(eq(stocktakeSessions.id, session.id), eq(stocktakeSessions.status, 'active')));
    return { session_id: session.id, generated: result!.generated, counted: result!.counted, total: result!.total, status: 'finished' };
  });
}
