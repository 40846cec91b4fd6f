import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { AppError, companyCondition, keywordMatch, notFound, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { notificationOutbox, type NotificationOutboxRow } from '../../db/schema/index.js';
import { announceOutboxMessages } from '../notifications/outbox-signal.js';
import type { OutboxListQuery, OutboxMessageView } from './schemas.js';

/** GET /integrations/outbox: messages newest first, with their delivery state (SUPER_ADMIN; `company` narrows). */
export async function listOutbox(ctx: UseCaseContext, query: OutboxListQuery) {
  const paging = pagingOf(query);
  const conditions: (SQL | undefined)[] = [
    query.status ? eq(notificationOutbox.status, query.status) : undefined,
    query.kind ? eq(notificationOutbox.kind, query.kind) : undefined,
    query.event_id ? eq(notificationOutbox.eventId, query.event_id) : undefined,
    // spec 2.1: a list narrows to one company by `company`; a message's company is the one it names
    companyCondition(ctx.scope(query.company), sql`${notificationOutbox.payload}->>'company_name'`),
    keywordMatch(query.keyword, sql`${notificationOutbox.payload}::text`),
    timeRangeCondition(notificationOutbox.createdAt, query.start_date, query.end_date),
  ];
  const where = and(...conditions);
  return ctx.read(async (q) => {
    const rows = await q.select().from(notificationOutbox).where(where).orderBy(desc(notificationOutbox.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(notificationOutbox).where(where);
    return pageOf(rows.map(toOutboxMessageView), total?.n ?? 0, paging);
  });
}

/**
 * POST /integrations/outbox/{id}/retry: a failed message goes back to pending with a fresh set of
 * attempts, due at once; last_error is kept until the next attempt. Only failed messages qualify
 * (a pending one is already being retried, a delivered one is done).
 */
export async function retryOutboxMessage(ctx: UseCaseContext, id: number): Promise<OutboxMessageView> {
  const row = await ctx.transaction(async (tx) => {
    const [current] = await tx.select().from(notificationOutbox).where(eq(notificationOutbox.id, id)).for('update');
    if (!current) throw notFound(`通知 ${id}`);
    if (current.status !== 'failed') {
      throw new AppError('STATUS_NOT_ALLOWED', `只有投递失败 (failed) 的通知可以重试，该通知为 ${current.status}`, { status: current.status });
    }
    const [updated] = await tx
      .update(notificationOutbox)
      .set({ status: 'pending', attempts: 0, nextAttemptAt: sql`now()` })
      .where(and(eq(notificationOutbox.id, id), eq(notificationOutbox.status, 'failed')))
      .returning();
    ctx.afterCommit(announceOutboxMessages);
    return updated!;
  });
  return toOutboxMessageView(row);
}

export function toOutboxMessageView(row: NotificationOutboxRow): OutboxMessageView {
  return {
    id: row.id,
    event_id: row.eventId,
    kind: row.kind,
    status: row.status,
    attempts: row.attempts,
    next_attempt_at: row.status === 'pending' ? row.nextAttemptAt.toISOString() : null,
    last_error: row.lastError,
    created_at: row.createdAt.toISOString(),
    delivered_at: row.deliveredAt?.toISOString() ?? null,
    payload: row.payload,
  };
}
