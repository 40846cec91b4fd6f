import { join } from 'node:path';
import { startActivitySampler, type ActivityShares } from './activity-sampler.js';
import { startCpuProfile, type ProfileSummary } from './cpu-profile.js';
import { watchDeadlocks } from './deadlock-log.js';
import type { LoadGenerator } from './load-client.js';
import type { ExecutionJob, LoadResult, Workload } from './load-protocol.js';
import type { Product } from './product.js';
import { queryTotals, queryTotalsSince } from './query-meter.js';
import { RESULTS_DIR, type BenchSettings } from './settings.js';

export type PhaseName = 'submit' | 'hot' | 'scan' | 'floor' | 'execute';

export interface PhaseResult {
  name: PhaseName;
  what: string;
  clients: number;
  rows: number;
  load: LoadResult;
  /**
   * Per measured HTTP call: round trips to PostgreSQL and their time as node saw
   * it, time waiting for a pooled connection, and CPU milliseconds of the server process, of the
   * PostgreSQL backends and of the load generator.
   */
  perRequest: { queries: number; queryMs: number; poolWaitMs: number; serverCpuMs: number; backendCpuMs: number | null; clientCpuMs: number };
  activity: ActivityShares;
  /** From the PostgreSQL log; null when the log cannot be read. */
  deadlocks: number | null;
  profile?: ProfileSummary;
}

export interface PhaseSpec {
  name: PhaseName;
  what: string;
  clients: number;
  rows: number;
  tokens: string[];
  workload: Workload;
}

const round = (n: number, digits = 2) => Math.round(n * 10 ** digits) / 10 ** digits;

interface Meters {
  deadlocks: ReturnType<typeof watchDeadlocks>;
  sampler: Awaited<ReturnType<typeof startActivitySampler>>;
  profiler: Awaited<ReturnType<typeof startCpuProfile>> | null;
  queries: ReturnType<typeof queryTotals>;
  cpu: NodeJS.CpuUsage;
}

/** Runs one product phase under the load generator; the server-side meters cover the measured part only. */
export async function runPhase(settings: BenchSettings, product: Product, generator: LoadGenerator, spec: PhaseSpec): Promise<PhaseResult> {
  let meters: Meters | undefined;
  const load = await generator.run(
    {
      baseUrl: product.baseUrl,
      tokens: spec.tokens.slice(0, spec.clients),
      warmupMs: settings.warmupSeconds * 1000,
      durationMs: settings.seconds * 1000,
      workload: spec.workload,
    },
    async () => {
      meters = {
        deadlocks: watchDeadlocks(product.database.name),
        sampler: await startActivitySampler(product.database.url, product.database.name),
        profiler: settings.profile ? await startCpuProfile() : null,
        queries: queryTotals(),
        cpu: process.cpuUsage(),
      };
    },
  );
  if (!meters) throw new Error('the load generator never started measuring');
  const spent = queryTotalsSince(meters.queries);
  const serverCpu = process.cpuUsage(meters.cpu);
  const profile = meters.profiler ? await meters.profiler.stop(join(RESULTS_DIR, `${spec.name}.cpuprofile`)) : undefined;
  const activity = await meters.sampler.stop();
  const calls = Math.max(1, load.steps.reduce((sum, step) => sum + step.count, 0));
  return {
    name: spec.name,
    what: spec.what,
    clients: spec.clients,
    rows: spec.rows,
    load,
    perRequest: {
      queries: round(spent.queries / calls, 1),
      queryMs: round(spent.queryMs / calls),
      poolWaitMs: round(spent.poolWaitMs / calls),
      serverCpuMs: round((serverCpu.user + serverCpu.system) / 1000 / calls, 3),
      backendCpuMs: activity.backendCpuMs === null ? null : round(activity.backendCpuMs / calls, 3),
      clientCpuMs: round(load.cpuMs / calls, 3),
    },
    activity,
    deadlocks: meters.deadlocks.count(),
    ...(profile ? { profile } : {}),
  };
}

/**
 * Pending requests made by the submit phase on the 10,000 rows, as execution jobs (scan every
 * allocated row for its full quantity). The first one stays open for the scan phase.
 */
export async function pendingRequests(product: Product, upToId: number): Promise<{ scanRequestId: number; jobs: ExecutionJob[] }> {
  const { rows } = await product.sql.query<{ id: number; items_json: Array<{ stock_id: number; quantity: string }> }>(
    'select id, items_json from outbound_requests where status = 0 and id <= $1 order by id',
    [upToId],
  );
  const [first, ...rest] = rows;
  if (!first) throw new Error('no pending request to scan against: the submit phase made none');
  const jobs = rest.map((request) => ({
    requestId: request.id,
    lines: request.items_json.map((line) => ({ barcode: product.skuOfRow.get(line.stock_id)!, quantity: Number(line.quantity) })),
  }));
  return { scanRequestId: first.id, jobs };
}

export async function lastRequestId(product: Product): Promise<number> {
  const { rows } = await product.sql.query<{ id: number | null }>('select max(id) as id from outbound_requests');
  return rows[0]?.id ?? 0;
}
