import { and, eq, isNotNull, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { queryRows, toQuantityOrZero, type Queryable } from '@wms/platform';
import { PRODUCT_STAGES, products, TASK_TYPES, tasks } from '../../../db/schema/index.js';
import type { TrackingContext } from '../../identity/data-scope.js';
import { countSeries, seriesTotals } from '../series.js';
import { dateRangeOf, maxRangeDays, productFilterOf, rangeView, withinRange } from '../stats-filters.js';
import type { StatsRangeQuery } from '../stats-filters.js';
import type { DurationStats, ThroughputQuery } from './schemas.js';

const THROUGHPUT_KINDS = ['started', 'completed', 'stocked_in', 'shipped', 'tasks_done'] as const;

/**
 * GET /analytics/throughput: per day / week / month, products started, completed, stocked in and
 * shipped, and tasks done, in one query. Task events join their product and take the same filter.
 */
export async function throughput(ctx: TrackingContext, query: ThroughputQuery) {
  const granularity = query.granularity ?? 'day';
  const range = dateRangeOf(query, ctx.now, maxRangeDays(granularity));
  const where = productFilterOf(await ctx.dataScope(), query);
  const fromProducts = sql`from ${products}`;
  const fromTasks = sql`from ${tasks} join ${products} on ${products.id} = ${tasks.productId}`;
  const points = await ctx.read((q) =>
    countSeries(q, range, granularity, [
      { kind: 'started', at: products.createdAt, from: fromProducts, where },
      { kind: 'completed', at: products.completedAt, from: fromProducts, where },
      { kind: 'stocked_in', at: products.stockedInAt, from: fromProducts, where },
      { kind: 'shipped', at: products.shippedAt, from: fromProducts, where },
      { kind: 'tasks_done', at: tasks.finishedAt, from: fromTasks, where: and(where, eq(tasks.status, 'DONE')) },
    ]),
  );
  const items = points.map(({ period, ...counts }) => ({ period, ...counts }));
  return { granularity, ...rangeView(range), items, totals: seriesTotals(points, THROUGHPUT_KINDS) };
}

/** Hours between two timestamptz columns. */
const hoursBetween = (from: AnyColumn, to: AnyColumn) => sql`(extract(epoch from (${to} - ${from})) / 3600)::numeric`;
const rounded = (aggregate: SQL) => sql`coalesce(round((${aggregate})::numeric, 2), 0)::text`;

interface DurationRow {
  count: number;
  avg_hours: string;
  min_hours: string;
  max_hours: string;
  p50_hours: string;
  p90_hours: string;
}

const durationColumns = sql`count(*)::int as count,
  ${rounded(sql`avg(h)`)} as avg_hours, ${rounded(sql`min(h)`)} as min_hours, ${rounded(sql`max(h)`)} as max_hours,
  ${rounded(sql`percentile_cont(0.5) within group (order by h)`)} as p50_hours,
  ${rounded(sql`percentile_cont(0.9) within group (order by h)`)} as p90_hours`;

function toDurationStats(row: DurationRow | undefined): DurationStats {
  return {
    count: row?.count ?? 0,
    avg_hours: toQuantityOrZero(row?.avg_hours),
    min_hours: toQuantityOrZero(row?.min_hours),
    max_hours: toQuantityOrZero(row?.max_hours),
    p50_hours: toQuantityOrZero(row?.p50_hours),
    p90_hours: toQuantityOrZero(row?.p90_hours),
  };
}

interface TaskDurationRow {
  key: string;
  count: number;
  avg_hours: string;
  avg_logged_hours: string;
  total_logged_hours: string;
}

/** DONE tasks finished in the range, grouped by `key`: how long start → finish took and the hours logged. */
function taskDurations(q: Queryable, where: SQL | undefined, key: AnyColumn) {
  return queryRows<TaskDurationRow>(
    q,
    sql`select ${key} as key, count(*)::int as count,
          ${rounded(sql`avg(${hoursBetween(tasks.startedAt, tasks.finishedAt)})`)} as avg_hours,
          ${rounded(sql`avg(${tasks.hours})`)} as avg_logged_hours,
          ${rounded(sql`sum(${tasks.hours})`)} as total_logged_hours
        from ${tasks} join ${products} on ${products.id} = ${tasks.productId}
       where ${and(where, eq(tasks.status, 'DONE'), isNotNull(tasks.startedAt), isNotNull(key)) ?? sql`true`}
       group by ${key}`,
  );
}

/**
 * GET /analytics/cycle-time: production cycle time (created → completed) of the products completed in
 * the range, overall and per model, and start → finish time of the tasks finished in it, per type.
 */
export async function cycleTime(ctx: TrackingContext, query: StatsRangeQuery) {
  const range = dateRangeOf(query, ctx.now, maxRangeDays('month'));
  const filter = productFilterOf(await ctx.dataScope(), query);
  const completed = and(filter, withinRange(products.completedAt, range)) ?? sql`true`;
  const cycle = hoursBetween(products.createdAt, products.completedAt);
  return ctx.read(async (q) => {
    const [overall] = await queryRows<DurationRow>(q, sql`select ${durationColumns} from (select ${cycle} as h from ${products} where ${completed}) s`);
    const byModel = await queryRows<{ model: string; count: number; avg_hours: string }>(
      q,
      sql`select ${products.model} as model, count(*)::int as count, ${rounded(sql`avg(${cycle})`)} as avg_hours
            from ${products} where ${completed}
           group by ${products.model} order by count(*) desc, ${products.model} limit 20`,
    );
    const byType = await taskDurations(q, and(filter, withinRange(tasks.finishedAt, range)), tasks.type);
    return {
      ...rangeView(range),
      products: toDurationStats(overall),
      by_model: byModel.map((row) => ({ model: row.model, count: row.count, avg_hours: toQuantityOrZero(row.avg_hours) })),
      tasks_by_type: TASK_TYPES.map((type) => {
        const row = byType.find((candidate) => candidate.key === type);
        return { type, count: row?.count ?? 0, avg_hours: toQuantityOrZero(row?.avg_hours), avg_logged_hours: toQuantityOrZero(row?.avg_logged_hours) };
      }),
    };
  });
}

/** GET /analytics/stage-duration: per stage, the tasks of that stage finished in the range. */
export async function stageDuration(ctx: TrackingContext, query: StatsRangeQuery) {
  const range = dateRangeOf(query, ctx.now, maxRangeDays('month'));
  const filter = productFilterOf(await ctx.dataScope(), query);
  const rows = await ctx.read((q) => taskDurations(q, and(filter, withinRange(tasks.finishedAt, range)), tasks.stage));
  return {
    ...rangeView(range),
    items: PRODUCT_STAGES.map((stage) => {
      const row = rows.find((candidate) => candidate.key === stage);
      return {
        stage,
        tasks: row?.count ?? 0,
        avg_duration_hours: toQuantityOrZero(row?.avg_hours),
        avg_logged_hours: toQuantityOrZero(row?.avg_logged_hours),
        total_logged_hours: toQuantityOrZero(row?.total_logged_hours),
      };
    }),
  };
}
