import { and, asc, count, eq, gte, lt, sql, type AnyColumn } from 'drizzle-orm';
import { queryRows, toQuantityOrZero } from '@wms/platform';
import { PRODUCT_STAGES, products, taskLogs, tasks, users } from '../../../db/schema/index.js';
import type { TrackingContext } from '../../identity/data-scope.js';
import { cardClockOf, countWhere, overdueCondition } from '../cards.js';
import { STATS_TIME_ZONE, dateRangeOf, dayBounds, daysBetween, productFilterOf, rangeView, withinRange, type DateRange } from '../stats-filters.js';
import type { AlertsQuery, RankingQuery } from './schemas.js';

const taskStatusIs = (status: 'TODO' | 'IN_PROGRESS' | 'DONE') => eq(tasks.status, status);
const between = (column: AnyColumn, day: { from: Date; to: Date }) => and(gte(column, day.from), lt(column, day.to))!;

/** GET /screen/summary: products per status and tasks per status with the overdue count (two queries). */
export async function screenSummary(ctx: TrackingContext) {
  const where = productFilterOf(await ctx.dataScope());
  const { today } = cardClockOf(ctx.now);
  return ctx.read(async (q) => {
    const [productCounts] = await q
      .select({
        total: count(),
        in_production: countWhere(eq(products.status, '生产中')),
        awaiting_warehouse: countWhere(eq(products.status, '待仓库收货')),
        stocked_in: countWhere(eq(products.status, '已入库')),
        shipped: countWhere(eq(products.status, '已出库')),
        after_sales: countWhere(eq(products.status, '售后中')),
      })
      .from(products)
      .where(where);
    const [taskCounts] = await q
      .select({
        total: count(),
        todo: countWhere(taskStatusIs('TODO')),
        in_progress: countWhere(taskStatusIs('IN_PROGRESS')),
        done: countWhere(taskStatusIs('DONE')),
        overdue: countWhere(overdueCondition(today)),
      })
      .from(tasks)
      .innerJoin(products, eq(products.id, tasks.productId))
      .where(where);
    return { generated_at: ctx.now.toISOString(), today, products: productCounts!, tasks: taskCounts! };
  });
}

/** GET /screen/line-status: every stage of the line with its products in production and its tasks. */
export async function lineStatus(ctx: TrackingContext) {
  const where = productFilterOf(await ctx.dataScope());
  const { today } = cardClockOf(ctx.now);
  const todayBounds = dayBounds(today);
  return ctx.read(async (q) => {
    const atStage = await q
      .select({ stage: products.currentStage, n: count() })
      .from(products)
      .where(and(where, eq(products.status, '生产中')))
      .groupBy(products.currentStage);
    const stageTasks = await q
      .select({
        stage: tasks.stage,
        todo: countWhere(taskStatusIs('TODO')),
        inProgress: countWhere(taskStatusIs('IN_PROGRESS')),
        overdue: countWhere(overdueCondition(today)),
        doneToday: countWhere(and(taskStatusIs('DONE'), between(tasks.finishedAt, todayBounds))!),
      })
      .from(tasks)
      .innerJoin(products, eq(products.id, tasks.productId))
      .where(where)
      .groupBy(tasks.stage);
    return {
      today,
      items: PRODUCT_STAGES.map((stage) => {
        const taskRow = stageTasks.find((row) => row.stage === stage);
        return {
          stage,
          products: atStage.find((row) => row.stage === stage)?.n ?? 0,
          tasks_todo: taskRow?.todo ?? 0,
          tasks_in_progress: taskRow?.inProgress ?? 0,
          tasks_overdue: taskRow?.overdue ?? 0,
          tasks_done_today: taskRow?.doneToday ?? 0,
        };
      }),
    };
  });
}

/** GET /screen/today: today's (Beijing) products, tasks and logs, and the logs per hour. Four queries. */
export async function screenToday(ctx: TrackingContext) {
  const where = productFilterOf(await ctx.dataScope());
  const { today } = cardClockOf(ctx.now);
  const day = dayBounds(today);
  // one condition for the day's tasks_done and its hourly column, so the hours add up to the total
  const doneToday = and(taskStatusIs('DONE'), between(tasks.finishedAt, day))!;
  return ctx.read(async (q) => {
    const [productCounts] = await q
      .select({
        started: countWhere(between(products.createdAt, day)),
        completed: countWhere(between(products.completedAt, day)),
        stockedIn: countWhere(between(products.stockedInAt, day)),
        shipped: countWhere(between(products.shippedAt, day)),
      })
      .from(products)
      .where(where);
    const [taskCounts] = await q
      .select({ created: countWhere(between(tasks.createdAt, day)), done: countWhere(doneToday) })
      .from(tasks)
      .innerJoin(products, eq(products.id, tasks.productId))
      .where(where);
    const logsToday = and(where, between(taskLogs.createdAt, day));
    const [logTotals] = await q
      .select({ logs: count(), hours: sql<string>`coalesce(sum(${taskLogs.hours}), 0)::text`, people: sql<number>`count(distinct ${taskLogs.userId})`.mapWith(Number) })
      .from(taskLogs)
      .innerJoin(tasks, eq(tasks.id, taskLogs.taskId))
      .innerJoin(products, eq(products.id, tasks.productId))
      .where(logsToday);
    // logs by the hour they were written, finished tasks by the hour of finished_at: the same rows as
    // the day's `logs` and `tasks_done`, so each column of by_hour adds up to its total
    const hourOf = (column: AnyColumn) => sql`extract(hour from ${column} at time zone ${sql.raw(`'${STATS_TIME_ZONE}'`)})::int`;
    const hourly = await queryRows<{ hour: number; logs: number; finished: number }>(
      q,
      sql`select hour, (count(*) filter (where kind = 'log'))::int as logs, (count(*) filter (where kind = 'done'))::int as finished
            from (
              select ${hourOf(taskLogs.createdAt)} as hour, 'log' as kind
                from ${taskLogs} join ${tasks} on ${tasks.id} = ${taskLogs.taskId} join ${products} on ${products.id} = ${tasks.productId}
               where ${logsToday}
              union all
              select ${hourOf(tasks.finishedAt)}, 'done'
                from ${tasks} join ${products} on ${products.id} = ${tasks.productId}
               where ${and(where, doneToday)}
            ) events
           group by hour`,
    );
    return {
      date: today,
      products_started: productCounts?.started ?? 0,
      products_completed: productCounts?.completed ?? 0,
      stocked_in: productCounts?.stockedIn ?? 0,
      shipped: productCounts?.shipped ?? 0,
      tasks_created: taskCounts?.created ?? 0,
      tasks_done: taskCounts?.done ?? 0,
      logs: logTotals?.logs ?? 0,
      hours: toQuantityOrZero(logTotals?.hours),
      active_people: logTotals?.people ?? 0,
      by_hour: Array.from({ length: 24 }, (_, hour) => {
        const row = hourly.find((candidate) => candidate.hour === hour);
        return { hour, logs: row?.logs ?? 0, tasks_done: row?.finished ?? 0 };
      }),
    };
  });
}

/**
 * GET /screen/ranking: people ranked by tasks finished (distinct tasks with a FINISH log), hours
 * logged or logs written in the range (default the last 30 days). Ties share a rank. One query.
 */
export async function ranking(ctx: TrackingContext, query: RankingQuery) {
  const metric = query.metric ?? 'tasks_done';
  const range: DateRange = dateRangeOf(query, ctx.now);
  const where = and(productFilterOf(await ctx.dataScope()), withinRange(taskLogs.createdAt, range));
  const by = sql.identifier(metric); // a RANKING_METRICS value (schema-validated), never free text
  const rows = await ctx.read((q) =>
    queryRows<{ rank: number; user_id: number; name: string; tasks_done: number; hours: string; logs: number }>(
      q,
      sql`select (rank() over (order by ${by} desc))::int as rank, user_id, name, tasks_done, hours::text as hours, logs
            from (
              select ${users.id} as user_id, ${users.name} as name,
                     (count(distinct ${taskLogs.taskId}) filter (where ${taskLogs.action} = 'FINISH'))::int as tasks_done,
                     coalesce(sum(${taskLogs.hours}), 0) as hours,
                     count(*)::int as logs
                from ${taskLogs} join ${tasks} on ${tasks.id} = ${taskLogs.taskId}
                join ${products} on ${products.id} = ${tasks.productId}
                join ${users} on ${users.id} = ${taskLogs.userId}
               where ${where}
               group by ${users.id}, ${users.name}
            ) per_person
           where ${by} > 0
           order by rank, name, user_id
           limit ${query.limit ?? 10}`,
    ),
  );
  return { ...rangeView(range), metric, items: rows.map((row) => ({ ...row, hours: toQuantityOrZero(row.hours) })) };
}

/** GET /screen/alerts: overdue tasks (due date passed, not DONE), most overdue first, with the total. */
export async function overdueAlerts(ctx: TrackingContext, query: AlertsQuery) {
  const { today } = cardClockOf(ctx.now);
  const where = and(productFilterOf(await ctx.dataScope()), overdueCondition(today));
  return ctx.read(async (q) => {
    const rows = await q
      .select({ task: tasks, serialNumber: products.serialNumber, model: products.model, phase: products.lifecyclePhase, assigneeName: users.name })
      .from(tasks)
      .innerJoin(products, eq(products.id, tasks.productId))
      .leftJoin(users, eq(users.id, tasks.assigneeId))
      .where(where)
      .orderBy(asc(tasks.dueDate), asc(tasks.id))
      .limit(query.limit ?? 20);
    const [total] = await q.select({ n: count() }).from(tasks).innerJoin(products, eq(products.id, tasks.productId)).where(where);
    return {
      today,
      total: total?.n ?? 0,
      items: rows.map(({ task, serialNumber, model, phase, assigneeName }) => ({
        task_id: task.id,
        title: task.title,
        type: task.type,
        stage: task.stage,
        status: task.status,
        due_date: task.dueDate!,
        days_overdue: daysBetween(task.dueDate!, today),
        assignee_id: task.assigneeId,
        assignee_name: assigneeName,
        product_id: task.productId,
        serial_number: serialNumber,
        model,
        lifecycle_phase: phase,
      })),
    };
  });
}
