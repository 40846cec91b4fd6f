import { and, gte, lt, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import { queryRows, type Queryable } from '@wms/platform';
import { beijingBucket, truncUnit, type DateRange, type Granularity } from './stats-filters.js';

/**
 * Counts of dated events per Beijing bucket (day, week from Monday, month), in ONE query: every event
 * source is a `select at` over its own table (with the scope filter in its WHERE), the buckets come
 * from generate_series, so empty buckets answer 0 and the number of queries never depends on the range.
 */
export interface EventSource<K extends string> {
  kind: K;
  /** The timestamptz column that dates the event. */
  at: AnyColumn;
  /** `from … join …` of the event's rows. */
  from: SQL;
  where: SQL | undefined;
}

export type SeriesPoint<K extends string> = { period: string } & Record<K, number>;

export async function countSeries<K extends string>(
  q: Queryable,
  range: DateRange,
  granularity: Granularity,
  sources: readonly EventSource<K>[],
): Promise<SeriesPoint<K>[]> {
  const events = sql.join(
    sources.map(
      (source) => sql`select ${source.kind}::text as kind, ${beijingBucket(source.at, granularity)} as bucket
        ${source.from} where ${and(source.where, gte(source.at, range.from), lt(source.at, range.to)) ?? sql`true`}`,
    ),
    sql` union all `,
  );
  const counts = sql.join(
    sources.map((source) => sql`(count(e.kind) filter (where e.kind = ${source.kind}))::int as ${sql.identifier(source.kind)}`),
    sql`, `,
  );
  const unit = truncUnit(granularity);
  const step = sql.raw(`interval '1 ${granularity}'`);
  return queryRows<SeriesPoint<K>>(
    q,
    sql`with events as (${events}),
      buckets as (
        select generate_series(date_trunc(${unit}, ${range.startDate}::timestamp), ${range.endDate}::timestamp, ${step}) as bucket
      )
      select to_char(b.bucket, 'YYYY-MM-DD') as period, ${counts}
        from buckets b left join events e on e.bucket = b.bucket
       group by b.bucket
       order by b.bucket`,
  );
}

/** Per-kind totals of a series. */
export function seriesTotals<K extends string>(points: readonly SeriesPoint<K>[], kinds: readonly K[]): Record<K, number> {
  const totals = Object.fromEntries(kinds.map((kind) => [kind, 0])) as Record<K, number>;
  for (const point of points) for (const kind of kinds) totals[kind] += point[kind];
  return totals;
}
