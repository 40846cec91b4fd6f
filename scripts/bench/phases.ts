import { startActivitySampler, type ActivityShares } from './activity-sampler.js';
import type { ProfileSummary } from './cpu-profile.js';
import { watchDeadlocks } from './deadlock-log.js';
import type { LoadGenerator } from './load-client.js';
import type { ExecutionJob, LoadResult, Workload } from './load-protocol.js';
import type { NoiseMeter, NoiseWindow } from './noise-meter.js';
import type { Product, SeededProduct } from './product.js';
import type { MeterTotals } from './server-meter-preload.js';
import { RESULTS_DIR, type BenchSettings } from './settings.js';
import { round } from './stats.js';

export type PhaseName = 'submit' | 'hot' | 'scan' | 'floor' | 'execute' | 'pglite';

export interface PhaseResult {
  name: PhaseName;
  what: string;
  clients: number;
  rows: number;
  load: LoadResult;
  /**
   * Per measured HTTP call: round trips to PostgreSQL and their time as the service saw it, time waiting
   * for a pooled connection (null on PGlite: no pg driver to count), and CPU milliseconds of the service's
   * process tree (workers included), of the PostgreSQL backends and of the load generator.
   */
  perRequest: { queries: number | null; queryMs: number | null; poolWaitMs: number | null; serverCpuMs: number; backendCpuMs: number | null; clientCpuMs: number };
  /** The service's garbage-collector pauses during the measured part (all its processes). */
  gc: { pauses: number; meanPauseMs: number; longPauses: number };
  /** PostgreSQL only. */
  activity: ActivityShares | null;
  /** From the PostgreSQL log; null when the log cannot be read (or on PGlite). */
  deadlocks: number | null;
  /** Other processes' CPU during the measured part. */
  noise: NoiseWindow;
  /** One per service process that ran the meter (the main process, or each cluster worker). */
  profiles?: Array<ProfileSummary & { pid: number; worker: boolean }>;
}

export interface PhaseSpec {
  name: PhaseName;
  what: string;
  clients: number;
  rows: number;
  tokens: string[];
  workload: Workload;
}

interface Meters {
  deadlocks: ReturnType<typeof watchDeadlocks> | null;
  sampler: Awaited<ReturnType<typeof startActivitySampler>> | null;
  queries: MeterTotals;
  serverCpuMs: number;
  noise: ReturnType<NoiseMeter['mark']>;
}

const onPostgres = (product: SeededProduct): product is Product => 'database' in product;

async function startMeters(settings: BenchSettings, product: SeededProduct, noise: NoiseMeter): Promise<Meters> {
  const database = onPostgres(product) ? product.database : null;
  if (settings.profile) await product.server.profile.start(settings.profile);
  return {
    deadlocks: database ? watchDeadlocks(database.name) : null,
    sampler: database ? await startActivitySampler(database.url, database.name) : null,
    queries: await product.server.totals(),
    serverCpuMs: product.server.cpuMs(),
    noise: noise.mark(),
  };
}

/** Runs one product phase under the load generator; the server-side meters cover the measured part only. */
export async function runPhase(
  settings: BenchSettings,
  product: SeededProduct,
  generator: LoadGenerator,
  spec: PhaseSpec,
  noise: NoiseMeter,
  tag = 'r1a1',
): Promise<PhaseResult> {
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
      meters = await startMeters(settings, product, noise);
    },
  );
  if (!meters) throw new Error('the load generator never started measuring');
  const noiseWindow = noise.since(meters.noise);
  const serverCpuMs = product.server.cpuMs() - meters.serverCpuMs;
  const after = await product.server.totals();
  const profiles = settings.profile ? await product.server.profile.stop(RESULTS_DIR, `${spec.name}-${tag}`, settings.profile) : undefined;
  const activity = meters.sampler ? await meters.sampler.stop() : null;
  const calls = Math.max(1, load.steps.reduce((sum, step) => sum + step.count, 0));
  const counted = onPostgres(product);
  return {
    name: spec.name,
    what: spec.what,
    clients: spec.clients,
    rows: spec.rows,
    load,
    perRequest: {
      queries: counted ? round((after.queries - meters.queries.queries) / calls, 1) : null,
      queryMs: counted ? round((after.queryMs - meters.queries.queryMs) / calls, 2) : null,
      poolWaitMs: counted ? round((after.poolWaitMs - meters.queries.poolWaitMs) / calls, 2) : null,
      serverCpuMs: round(serverCpuMs / calls, 3),
      backendCpuMs: activity?.backendCpuMs == null ? null : round(activity.backendCpuMs / calls, 3),
      clientCpuMs: round(load.cpuMs / calls, 3),
    },
    gc: gcDuring(meters.queries, after),
    activity,
    deadlocks: meters.deadlocks?.count() ?? null,
    noise: noiseWindow,
    ...(profiles ? { profiles } : {}),
  };
}

function gcDuring(before: MeterTotals, after: MeterTotals): PhaseResult['gc'] {
  const pauses = after.gcPauses - before.gcPauses;
  return {
    pauses,
    meanPauseMs: pauses ? round((after.gcPauseMs - before.gcPauseMs) / pauses, 2) : 0,
    longPauses: after.longGcPauses - before.longGcPauses,
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
