import { and, eq } from 'drizzle-orm';
import { pageOf, pagingOf, type Page, type UseCaseContext } from '@wms/platform';
import { stocktakeDrafts } from '../../db/schema/index.js';
import { countDrafts, readDraftViews } from './draft-views.js';
import type { DraftListQuery, DraftView } from './schemas.js';
import { assertActive, lockSession, requireSession } from './sessions.js';

/** GET /draft/list: the session's drafts, newest scan first, paged in the database; uuid is an exact filter. */
export async function listDrafts(ctx: UseCaseContext, query: DraftListQuery): Promise<Page<DraftView>> {
  const paging = pagingOf(query);
  return ctx.read(async (q) => {
    await requireSession(q, ctx.scope(), query.session_id);
    const where = and(eq(stocktakeDrafts.sessionId, query.session_id), query.uuid !== undefined ? eq(stocktakeDrafts.uuid, query.uuid) : undefined);
    const [items, total] = await Promise.all([readDraftViews(q, where, paging), countDrafts(q, where)]);
    return pageOf(items, total, paging);
  });
}

/** POST /draft/clear: removes the counts of an active session (a finished one keeps them for /adjust). */
export async function clearDrafts(ctx: UseCaseContext, sessionId: number): Promise<{ session_id: number; cleared: number }> {
  return ctx.transaction(async (tx) => {
    const session = await lockSession(tx, ctx.scope(), sessionId, 'update');
    assertActive(session);
    const removed = await tx.delete(stocktakeDrafts).where(eq(stocktakeDrafts.sessionId, session.id)).returning({ id: stocktakeDrafts.id });
    return { session_id: session.id, cleared: removed.length };
  });
}
