import { and, count, eq, ne, sql } from 'drizzle-orm';
import { queryRows, toQuantityOrZero } from '@wms/platform';
import { businessGroups, PRODUCT_STATUSES, products, TASK_STATUSES, TASK_TYPES, tasks } from '../../../db/schema/index.js';
import type { TrackingContext } from '../../identity/data-scope.js';
import { statusLabel } from '../../tasks/task-status.js';
import { TASK_TYPE_LABELS } from '../labels.js';
import { cardClockOf, countWhere, overdueCondition } from '../cards.js';
import { optionalDateRangeOf, productFilterOf, withinRange, type DateRange, type StatsRangeQuery } from '../stats-filters.js';
import type { AfterSalesQuery, ByGroupQuery } from './schemas.js';

const optionalRangeView = (range: DateRange | undefined) => ({ start_date: range?.startDate ?? null, end_date: range?.endDate ?? null });

/**
 * GET /analytics/task-status: tasks (joined to their product, same filter) per status and per type,
 * with the overdue count. Without a date range every task counts; with one, the tasks created in it.
 */
export async function taskStatus(ctx: TrackingContext, query: StatsRangeQuery) {
  const range = optionalDateRangeOf(query, ctx.now);
  const where = and(productFilterOf(await ctx.dataScope(), query), withinRange(tasks.createdAt, range));
  const overdue = overdueCondition(cardClockOf(ctx.now).today);
  const rows = await ctx.read((q) =>
    q
      .select({ type: tasks.type, status: tasks.status, n: count(), overdue: countWhere(overdue) })
      .from(tasks)
      .innerJoin(products, eq(products.id, tasks.productId))
      .where(where)
      .groupBy(tasks.type, tasks.status),
  );
  const countOf = (match: (row: (typeof rows)[number]) => boolean) => rows.filter(match).reduce((sum, row) => sum + row.n, 0);
  return {
    ...optionalRangeView(range),
    total: countOf(() => true),
    overdue: rows.reduce((sum, row) => sum + row.overdue, 0),
    by_status: TASK_STATUSES.map((status) => ({ status, label: statusLabel(status), count: countOf((row) => row.status === status) })),
    by_type: TASK_TYPES.map((type) => ({
      type,
      label: TASK_TYPE_LABELS[type],
      total: countOf((row) => row.type === type),
      todo: countOf((row) => row.type === type && row.status === 'TODO'),
      in_progress: countOf((row) => row.type === type && row.status === 'IN_PROGRESS'),
      done: countOf((row) => row.type === type && row.status === 'DONE'),
    })),
  };
}

/**
 * GET /analytics/after-sales: products now in the AFTER_SALES phase (per status and model) and their
 * tasks. The date range, when sent, narrows the tasks to those created in it. A caller whose scope
 * lacks AFTER_SALES sees zeros.
 */
export async function afterSales(ctx: TrackingContext, query: AfterSalesQuery) {
  const range = optionalDateRangeOf(query, ctx.now);
  const productWhere = productFilterOf(await ctx.dataScope(), { ...query, lifecycle_phase: 'AFTER_SALES' });
  const taskWhere = and(productWhere, withinRange(tasks.createdAt, range));
  const overdue = overdueCondition(cardClockOf(ctx.now).today);
  return ctx.read(async (q) => {
    const statuses = await q.select({ status: products.status, n: count() }).from(products).where(productWhere).groupBy(products.status);
    const [taskTotals] = await q
      .select({
        total: count(),
        open: countWhere(ne(tasks.status, 'DONE')),
        done: countWhere(eq(tasks.status, 'DONE')),
        overdue: countWhere(overdue),
        resolution: sql<string>`coalesce(round((avg(extract(epoch from (${tasks.finishedAt} - ${tasks.createdAt})) / 3600) filter (where ${tasks.status} = 'DONE'))::numeric, 2), 0)::text`,
      })
      .from(tasks)
      .innerJoin(products, eq(products.id, tasks.productId))
      .where(taskWhere);
    const taskJoin = and(eq(tasks.productId, products.id), withinRange(tasks.createdAt, range));
    const byModel = await queryRows<{ model: string; products: number; tasks: number }>(
      q,
      sql`select ${products.model} as model, count(distinct ${products.id})::int as products, count(${tasks.id})::int as tasks
            from ${products} left join ${tasks} on ${taskJoin}
           where ${productWhere ?? sql`true`}
           group by ${products.model}
           order by count(distinct ${products.id}) desc, ${products.model} limit 20`,
    );
    return {
      ...optionalRangeView(range),
      products_total: statuses.reduce((sum, row) => sum + row.n, 0),
      by_status: PRODUCT_STATUSES.map((status) => ({ status, count: statuses.find((row) => row.status === status)?.n ?? 0 })).filter((row) => row.count > 0),
      tasks: {
        total: taskTotals?.total ?? 0,
        open: taskTotals?.open ?? 0,
        done: taskTotals?.done ?? 0,
        overdue: taskTotals?.overdue ?? 0,
        avg_resolution_hours: toQuantityOrZero(taskTotals?.resolution),
      },
      by_model: byModel,
    };
  });
}

interface ByGroupRow {
  group_id: number | null;
  group_name: string | null;
  products: number;
  in_production: number;
  completed: number;
  open_tasks: number;
  done_tasks: number;
  hours: string;
}

/**
 * GET /analytics/by-group: per business group of the products (products.group_id; null = 未分组),
 * the products and their tasks, in one query. Only groups with products in the filter are listed.
 * The date range, when sent, narrows to products created in it (and their tasks).
 */
export async function byGroup(ctx: TrackingContext, query: ByGroupQuery) {
  const range = optionalDateRangeOf(query, ctx.now);
  const where = and(productFilterOf(await ctx.dataScope(), query), withinRange(products.createdAt, range)) ?? sql`true`;
  const rows = await ctx.read((q) =>
    queryRows<ByGroupRow>(
      q,
      sql`with p as (
            select ${products.groupId} as group_id, count(*)::int as products,
                   (count(*) filter (where ${products.status} = '生产中'))::int as in_production,
                   (count(*) filter (where ${products.completedAt} is not null))::int as completed
              from ${products} where ${where} group by ${products.groupId}
          ), t as (
            select ${products.groupId} as group_id,
                   (count(*) filter (where ${tasks.status} <> 'DONE'))::int as open_tasks,
                   (count(*) filter (where ${tasks.status} = 'DONE'))::int as done_tasks,
                   coalesce(sum(${tasks.hours}), 0)::text as hours
              from ${tasks} join ${products} on ${products.id} = ${tasks.productId}
             where ${where} group by ${products.groupId}
          )
          select p.group_id, g.name as group_name, p.products, p.in_production, p.completed,
                 coalesce(t.open_tasks, 0) as open_tasks, coalesce(t.done_tasks, 0) as done_tasks, coalesce(t.hours, '0') as hours
            from p
            left join t on t.group_id is not distinct from p.group_id
            left join ${businessGroups} g on g.id = p.group_id
           order by p.products desc, p.group_id nulls last`,
    ),
  );
  return {
    ...optionalRangeView(range),
    items: rows.map((row) => ({
      group_id: row.group_id,
      group_name: row.group_id === null ? '未分组' : (row.group_name ?? `业务组 ${row.group_id}`),
      products: row.products,
      in_production: row.in_production,
      completed: row.completed,
      open_tasks: row.open_tasks,
      done_tasks: row.done_tasks,
      hours: toQuantityOrZero(row.hours),
    })),
  };
}
