import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import { keywordMatch, notFound, pageOf, pagingOf, timeRangeCondition, type Tx, type UseCaseContext } from '@wms/platform';
import { reminders, type ReminderRow } from '../../db/schema/index.js';
import type { ReminderListQuery, ReminderView } from './schemas.js';

export function toReminderView(row: ReminderRow): ReminderView {
  return {
    id: row.id,
    user_id: row.userId,
    task_id: row.taskId,
    content: row.content,
    read_at: row.readAt?.toISOString() ?? null,
    created_at: row.createdAt.toISOString(),
  };
}

/** Writes a reminder for one user in the caller's transaction (e.g. a task was assigned to them). */
export async function remindUser(tx: Tx, reminder: { userId: number; taskId: number | null; content: string; now: Date }): Promise<void> {
  await tx.insert(reminders).values({ userId: reminder.userId, taskId: reminder.taskId, content: reminder.content, createdAt: reminder.now });
}

/**
 * The caller's own reminders, newest first, with the count of unread ones (under the same filter). Not
 * scope-filtered (spec 4.3). keyword: the content.
 */
export async function listMyReminders(ctx: UseCaseContext, query: ReminderListQuery) {
  const paging = pagingOf(query);
  const where = and(
    eq(reminders.userId, ctx.actor.id),
    query.unread ? isNull(reminders.readAt) : undefined,
    keywordMatch(query.keyword, reminders.content),
    timeRangeCondition(reminders.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q.select().from(reminders).where(where).orderBy(desc(reminders.id)).limit(paging.limit).offset(paging.offset);
    const [totals] = await q
      .select({ total: count(), unread: sql<number>`count(*) filter (where ${reminders.readAt} is null)`.mapWith(Number) })
      .from(reminders)
      .where(where);
    return { ...pageOf(rows.map(toReminderView), totals?.total ?? 0, paging), unread: totals?.unread ?? 0 };
  });
}

/**
 * Marks one of the caller's reminders read. Someone else's reminder is 404 (it does not exist for the
 * caller); an already read one keeps its first read time.
 */
export async function markReminderRead(ctx: UseCaseContext, id: number) {
  const row = await ctx.transaction(async (tx) => {
    const mine = and(eq(reminders.id, id), eq(reminders.userId, ctx.actor.id));
    const [updated] = await tx.update(reminders).set({ readAt: ctx.now }).where(and(mine, isNull(reminders.readAt))).returning();
    if (updated) return updated;
    const [existing] = await tx.select().from(reminders).where(mine);
    if (!existing) throw notFound('提醒');
    return existing;
  });
  return toReminderView(row);
}
