/**
 * `npm run bench` (issue 14): the inventory service as deployed — its production entry in its own process,
 * on a fresh PostgreSQL database (or an on-disk PGlite for the pglite phase) — measured over HTTP and
 * reported as ratios to raw pgbench transactions (../shared/bench) measured right before each product phase.
 * Every comparison runs BENCH_RUNS times; the report gives medians and spreads. Phases during which other
 * processes used the CPU are repeated and, if they stay disturbed, never reported as PASS.
 * Settings: scripts/bench/settings.ts and docs/benchmarks.md.
 */
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { noiseText, runComparison, type ComparisonPlan } from './bench/comparison.js';
import { startLoadGenerator, type LoadGenerator } from './bench/load-client.js';
import { startNoiseMeter, type NoiseMeter } from './bench/noise-meter.js';
import { lastRequestId, pendingRequests, runPhase, type PhaseName, type PhaseSpec } from './bench/phases.js';
import { pgbench, setupRawTables } from './bench/pgbench.js';
import { HOT_ROWS, startPgliteProduct, startProduct, WIDE_ROWS, type Product, type SeededProduct } from './bench/product.js';
import { judge, renderReport, type BenchReport, type ComparisonResult, type ExtraPhase, type RawName } from './bench/report.js';
import { createScratchDatabase, deadlocksOf, type ScratchDatabase } from './bench/scratch-database.js';
import { readSettings, RESULTS_DIR, type BenchSettings } from './bench/settings.js';
import { speedProbeMs } from './bench/speed-probe.js';
import { runStocktakePhase } from './bench/stocktake-phase.js';
import { runAuditPhase } from './bench/audit-phase.js';
import type { ListsPhaseResult } from './bench/lists-phase.js';

const SUBMIT_CLIENTS = 8;
const HOT_CLIENTS = 50;
const SCAN_CLIENTS = 50;
const EXECUTE_CLIENTS = 8;
const PGLITE_CLIENTS = 1;
const MAX_CLIENTS = Math.max(SUBMIT_CLIENTS, HOT_CLIENTS, SCAN_CLIENTS, EXECUTE_CLIENTS);
const POSTGRES_PHASES = ['submit', 'hot', 'scan', 'floor', 'execute', 'stocktake', 'audit'];

const loadText = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const log = (text: string) => console.error(`[bench] ${text}`);

interface Bench {
  settings: BenchSettings;
  noise: NoiseMeter;
  generator: LoadGenerator;
  rawDb: ScratchDatabase;
  comparisons: ComparisonResult[];
  extras: ExtraPhase[];
}

const wanted = (settings: BenchSettings, phase: string) => !settings.only || settings.only.has(phase);

const baseline = (bench: Bench, script: string, args: string[]) => () => pgbench(bench.rawDb, script, args);

/** Runs one comparison BENCH_RUNS times (once when it uses up prepared work), alternating baseline and product. */
async function compare(bench: Bench, name: PhaseName, raw: RawName | undefined, what: string, plan: ComparisonPlan): Promise<void> {
  const runs = plan.repeatable ? bench.settings.runs : 1;
  log(`${name}: ${what}`);
  const result: ComparisonResult = { name, ...(raw ? { raw } : {}), runs: [] };
  bench.comparisons.push(result);
  for (let run = 1; run <= runs; run++) result.runs.push(await runComparison(bench.settings, bench.noise, run, plan, log));
}

const productPlan = (bench: Bench, product: SeededProduct, spec: PhaseSpec, raw?: () => ReturnType<typeof pgbench>): ComparisonPlan => ({
  ...(raw ? { baseline: raw } : {}),
  product: (tag) => runPhase(bench.settings, product, bench.generator, spec, bench.noise, tag),
  repeatable: spec.workload.kind !== 'execute',
});

/** A phase with its own result shape, with the others' CPU around it. */
async function extra(bench: Bench, name: string, what: string, run: () => Promise<unknown>): Promise<void> {
  log(`${name}: ${what}`);
  const quiet = await bench.noise.waitForQuiet(bench.settings.noiseLimitCore, bench.settings.quietWaitSeconds);
  log(`  machine ${quiet.quiet ? 'quiet' : 'NOT quiet'} (${noiseText(quiet)})`);
  const from = bench.noise.mark();
  const result = await run();
  const noise = bench.noise.since(from);
  log(`  (${noiseText(noise)})`);
  bench.extras.push({ name, noise, result });
}

async function postgresPhases(bench: Bench, product: Product): Promise<void> {
  const { settings } = bench;
  const T = String(settings.seconds);
  const { applicants, operators, managers } = product.users;
  const needsPending = wanted(settings, 'scan') || wanted(settings, 'execute') || wanted(settings, 'audit');

  const submit: PhaseSpec = {
    name: 'submit',
    what: `3 random materials of ${WIDE_ROWS} rows per request`,
    clients: SUBMIT_CLIENTS,
    rows: WIDE_ROWS,
    tokens: applicants,
    workload: { kind: 'submit', materialIds: product.wideMaterialIds, linesPerRequest: 3 },
  };
  if (wanted(settings, 'submit')) {
    await compare(bench, 'submit', 'reserve', submit.what, productPlan(bench, product, submit, baseline(bench, 'reserve.sql', ['-D', `range=${WIDE_ROWS}`, '-c', '8', '-j', '2', '-T', T])));
  } else if (needsPending) {
    // Scan and execute work on pending requests of the 10,000 rows: the submit phase makes them, or this.
    const durationMs = Math.max(2, settings.seconds / 2) * 1000;
    await bench.generator.run({ baseUrl: product.baseUrl, tokens: applicants.slice(0, SUBMIT_CLIENTS), warmupMs: 0, durationMs, workload: submit.workload });
  }
  const wideRequestsUpTo = await lastRequestId(product);

  if (wanted(settings, 'hot')) {
    const hot: PhaseSpec = {
      name: 'hot',
      what: `3 of ${HOT_ROWS} hot rows per request`,
      clients: HOT_CLIENTS,
      rows: HOT_ROWS,
      tokens: applicants,
      workload: { kind: 'submit', materialIds: product.hotMaterialIds, linesPerRequest: 3 },
    };
    await compare(bench, 'hot', 'reserveHot', hot.what, productPlan(bench, product, hot, baseline(bench, 'reserve.sql', ['-D', `range=${HOT_ROWS}`, '-c', '8', '-j', '2', '-T', T])));
  }

  const pending = needsPending ? await pendingRequests(product, wideRequestsUpTo) : null;
  const scanWorkload = pending && { kind: 'scan' as const, barcodes: product.wideBarcodes, requestId: pending.scanRequestId };
  if (scanWorkload && wanted(settings, 'scan')) {
    const scan: PhaseSpec = {
      name: 'scan',
      what: `random barcodes of ${WIDE_ROWS} rows against request ${scanWorkload.requestId}`,
      clients: SCAN_CLIENTS,
      rows: WIDE_ROWS,
      tokens: operators,
      workload: scanWorkload,
    };
    await compare(bench, 'scan', 'select', scan.what, productPlan(bench, product, scan, baseline(bench, 'select.sql', ['-D', `range=${WIDE_ROWS}`, '-c', '8', '-j', '2', '-T', T, '-M', 'prepared'])));
  }
  if (wanted(settings, 'floor')) {
    const floor: PhaseSpec = {
      name: 'floor',
      what: 'GET /auth/me: token check, user reload and one primary-key read over HTTP (no target: the floor under every call)',
      clients: SCAN_CLIENTS,
      rows: 0,
      tokens: operators,
      workload: { kind: 'get', label: 'auth/me', path: '/api/v1/auth/me' },
    };
    await compare(bench, 'floor', undefined, floor.what, productPlan(bench, product, floor));
  }
  if (pending && wanted(settings, 'execute')) {
    const execute: PhaseSpec = {
      name: 'execute',
      what: `approve + execute of ${pending.jobs.length} prepared requests (3 rows each; runs once: it uses them up)`,
      clients: EXECUTE_CLIENTS,
      rows: WIDE_ROWS,
      tokens: managers,
      workload: { kind: 'execute', jobs: pending.jobs },
    };
    await compare(bench, 'execute', undefined, execute.what, productPlan(bench, product, execute));
  }
  if (wanted(settings, 'stocktake')) {
    await extra(bench, 'stocktake', 'merged-list, generate-missing and export of a 5,000-item count (target 2 s each)', () => runStocktakePhase(product, log));
  }
  if (scanWorkload && wanted(settings, 'audit')) {
    // The audit phase reads the memory of its own process; out of process the service's is server.rssBytes().
    await extra(bench, 'audit', 'export of 100,000 audit records while scans run (target 5 s, 256 MB, scan p99 within 2x)', () =>
      runAuditPhase(settings, product, bench.generator, { tokens: operators.slice(0, SCAN_CLIENTS), workload: scanWorkload }, log),
    );
  }
}

/** Issue 14 point 4: on PGlite, one client submitting serially against one pgbench client on PostgreSQL. */
async function pglitePhase(bench: Bench): Promise<void> {
  log('starting the inventory service on an on-disk PGlite (seeded before it starts)');
  const product = await startPgliteProduct(PGLITE_CLIENTS, log);
  try {
    const spec: PhaseSpec = {
      name: 'pglite',
      what: `PGlite: 1 client, 3 random materials of ${WIDE_ROWS} rows per request, vs reserve.sql with 1 pgbench client on PostgreSQL`,
      clients: PGLITE_CLIENTS,
      rows: WIDE_ROWS,
      tokens: product.users.applicants,
      workload: { kind: 'submit', materialIds: product.wideMaterialIds, linesPerRequest: 3 },
    };
    const raw = baseline(bench, 'reserve.sql', ['-D', `range=${WIDE_ROWS}`, '-c', '1', '-j', '1', '-T', String(bench.settings.seconds)]);
    await compare(bench, 'pglite', 'reserveSerial', spec.what, productPlan(bench, product, spec, raw));
  } finally {
    await product.close();
  }
}

/**
 * Issue 14 point 5, written by another hand (scripts/bench/lists-phase.ts). LISTS PHASE CALL SITE: loaded
 * when the file exports runListsPhase, skipped with a note until then. Switch to a static import
 * (`import { runListsPhase } from './bench/lists-phase.js'`) once it has landed. It gets a fresh scratch
 * database of its own (`bench_lists_…`, counted as the bench's by the noise check).
 */
type RunListsPhase = (settings: BenchSettings, databaseUrl: string, log: (text: string) => void) => Promise<ListsPhaseResult>;
async function listsPhase(bench: Bench): Promise<void> {
  const file = new URL('./bench/lists-phase.ts', import.meta.url);
  const loaded = existsSync(file) ? ((await import(file.href)) as { runListsPhase?: RunListsPhase }) : {};
  if (typeof loaded.runListsPhase !== 'function') {
    log('lists: scripts/bench/lists-phase.ts does not export runListsPhase yet; skipped');
    return;
  }
  const runListsPhase = loaded.runListsPhase;
  const database = await createScratchDatabase(bench.settings.databaseUrl, 'bench_lists');
  bench.noise.watchDatabase(database.name);
  try {
    await extra(bench, 'lists', 'stock and material lists at warehouse scale (target p99 <= 50 ms)', () => runListsPhase(bench.settings, database.url, log));
  } finally {
    if (!bench.settings.keepDatabases) await database.drop();
  }
}

async function main(): Promise<void> {
  const settings = readSettings();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const startedAt = new Date().toISOString();
  const loadBefore = loadText();
  const probeBefore = speedProbeMs();
  const workers = process.env.INVENTORY_WORKERS?.trim() || null;
  log(`load average ${loadBefore} on ${cpus().length} CPUs; ${settings.seconds} s per phase, ${settings.runs} run(s) per comparison; INVENTORY_WORKERS=${workers ?? '(unset)'}; JavaScript speed probe ${probeBefore} ms`);

  const noise = await startNoiseMeter(settings.databaseUrl);
  const rawDb = await createScratchDatabase(settings.databaseUrl, 'bench_raw');
  noise.watchDatabase(rawDb.name);
  let product: Product | undefined;
  let generator: LoadGenerator | undefined;
  const deadlocks = { product: 0, raw: 0 };
  const bench: Omit<Bench, 'generator'> = { settings, noise, rawDb, comparisons: [], extras: [] };
  try {
    await setupRawTables(rawDb.url);
    generator = await startLoadGenerator();
    const running: Bench = { ...bench, generator };
    if (POSTGRES_PHASES.some((phase) => wanted(settings, phase))) {
      log('starting the inventory service (apps/inventory/src/server.ts) on a fresh database and seeding it');
      product = await startProduct(settings.databaseUrl, MAX_CLIENTS, noise, log);
      await postgresPhases(running, product);
      await product.close();
      // Backends report their statistics when they end: read the counters after the service stopped.
      deadlocks.product = await deadlocksOf(settings.databaseUrl, product.database.name);
    }
    if (wanted(settings, 'lists')) await listsPhase(running);
    if (wanted(settings, 'pglite')) await pglitePhase(running);
  } finally {
    generator?.close();
    await product?.close().catch(() => undefined);
    deadlocks.raw = await deadlocksOf(settings.databaseUrl, rawDb.name);
    await noise.close();
    if (!settings.keepDatabases) {
      await product?.database.drop();
      await rawDb.drop();
    }
  }

  const report: BenchReport = {
    startedAt,
    seconds: settings.seconds,
    runs: settings.runs,
    noiseLimitCore: settings.noiseLimitCore,
    workers,
    load: { before: loadBefore, after: loadText(), cpus: cpus().length },
    speedProbe: { before: probeBefore, after: speedProbeMs() },
    comparisons: bench.comparisons,
    extras: bench.extras,
    verdicts: judge(bench.comparisons, deadlocks.product),
    deadlocks,
  };
  const file = join(RESULTS_DIR, 'results.json');
  writeFileSync(file, JSON.stringify(report, null, 2));
  console.log(renderReport(report));
  console.log(`\nJSON: ${file}`);
}

main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
