import { beijingDate, beijingMidnight } from '@wms/platform';
import { and, count, desc, eq, isNull, sql } from 'drizzle-orm';
import type { UseCaseContext } from '@wms/platform';
import { PRODUCT_STAGES, products, reminders, taskLogs, tasks } from '../../../db/schema/index.js';
import type { TrackingContext } from '../../identity/data-scope.js';
import { toReminderView } from '../../reminders/reminder-service.js';
import { selectActivity, toActivityView } from '../activity.js';
import { countSeries, seriesTotals } from '../series.js';
import { addDays, monthBounds, productFilterOf, type DateRange } from '../stats-filters.js';
import type { DashboardRemindersQuery, MonthlyProductionQuery, RecentActivityQuery } from './schemas.js';

/**
 * GET /dashboard/wip-distribution: products in production (生产中) per current stage, in line order.
 * Stages with nothing for the caller's scope are left out; total is the sum of the items.
 */
export async function wipDistribution(ctx: TrackingContext) {
  const where = and(productFilterOf(await ctx.dataScope()), eq(products.status, '生产中'));
  const rows = await ctx.read((q) =>
    q.select({ stage: products.currentStage, n: count() }).from(products).where(where).groupBy(products.currentStage),
  );
  const items = PRODUCT_STAGES.map((stage) => ({ stage, count: rows.find((row) => row.stage === stage)?.n ?? 0 })).filter((item) => item.count > 0);
  return { total: items.reduce((sum, item) => sum + item.count, 0), items };
}

/** The `months` Beijing months ending with the current one, as a date range. */
function lastMonths(now: Date, months: number): DateRange {
  const thisMonth = monthBounds(beijingDate(now));
  const [year, month] = thisMonth.first.split('-').map(Number) as [number, number];
  const startIndex = year * 12 + (month - 1) - (months - 1);
  const startDate = `${Math.floor(startIndex / 12)}-${String((startIndex % 12) + 1).padStart(2, '0')}-01`;
  const endDate = addDays(thisMonth.next, -1);
  return { startDate, endDate, from: beijingMidnight(startDate), to: beijingMidnight(thisMonth.next) };
}

/**
 * GET /dashboard/monthly-production: products started (created) and completed (生产中 → 待仓库收货)
 * per Beijing month. The plain product filter applies (spec 4.3: not specially handled), so a product
 * counts for whoever sees its current phase.
 */
export async function monthlyProduction(ctx: TrackingContext, query: MonthlyProductionQuery) {
  const months = query.months ?? 12;
  const where = productFilterOf(await ctx.dataScope());
  const range = lastMonths(ctx.now, months);
  const from = sql`from ${products}`;
  const points = await ctx.read((q) =>
    countSeries(q, range, 'month', [
      { kind: 'started', at: products.createdAt, from, where },
      { kind: 'completed', at: products.completedAt, from, where },
    ]),
  );
  const totals = seriesTotals(points, ['started', 'completed']);
  return {
    months,
    items: points.map((point) => ({ month: point.period.slice(0, 7), started: point.started, completed: point.completed })),
    total_started: totals.started,
    total_completed: totals.completed,
  };
}

/**
 * GET /dashboard/reminders: the caller's unread reminders, newest first, with the unread count.
 * Reminders are the caller's own and are not scope-filtered (spec 4.3).
 */
export async function dashboardReminders(ctx: UseCaseContext, query: DashboardRemindersQuery) {
  const unreadOfMine = and(eq(reminders.userId, ctx.actor.id), isNull(reminders.readAt));
  return ctx.read(async (q) => {
    const rows = await q
      .select({ reminder: reminders, taskTitle: tasks.title })
      .from(reminders)
      .leftJoin(tasks, eq(tasks.id, reminders.taskId))
      .where(unreadOfMine)
      .orderBy(desc(reminders.id))
      .limit(query.limit ?? 10);
    const [unread] = await q.select({ n: count() }).from(reminders).where(unreadOfMine);
    return { unread: unread?.n ?? 0, items: rows.map((row) => ({ ...toReminderView(row.reminder), task_title: row.taskTitle })) };
  });
}

/** GET /dashboard/recent-activity: the newest task logs in the caller's scope. */
export async function recentActivity(ctx: TrackingContext, query: RecentActivityQuery) {
  const where = productFilterOf(await ctx.dataScope());
  const rows = await ctx.read((q) => selectActivity(q).where(where).orderBy(desc(taskLogs.createdAt), desc(taskLogs.id)).limit(query.limit ?? 20));
  return { items: rows.map(toActivityView) };
}
