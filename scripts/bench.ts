/**
 * `npm run bench`: the outbound benchmark (issue 3) against a real PostgreSQL server, reported as
 * ratios to raw pgbench transactions (../shared/bench) measured in the same run. Each product phase
 * runs right after its baseline so that both see the same machine load. See docs/benchmarks.md.
 *
 *   BENCH_DATABASE_URL  server for the scratch databases (default postgres://postgres@127.0.0.1:5432/postgres)
 *   BENCH_SECONDS       length of each phase (default 20; 5 for a quick run)
 *   BENCH_PROFILE=1     V8 CPU profile of the server per phase, summarized, files in .bench/
 *   BENCH_ONLY=a,b      only these phases: submit, hot, scan, floor, execute, stocktake, audit
 *   BENCH_KEEP=1        keep the scratch databases
 */
import { mkdirSync, writeFileSync } from 'node:fs';
import { cpus, loadavg } from 'node:os';
import { join } from 'node:path';
import { startLoadGenerator, type LoadGenerator } from './bench/load-client.js';
import { lastRequestId, pendingRequests, runPhase, type PhaseResult, type PhaseSpec } from './bench/phases.js';
import { pgbench, setupRawTables, type RawResult } from './bench/pgbench.js';
import { HOT_ROWS, startProduct, WIDE_ROWS, type Product } from './bench/product.js';
import { installQueryMeter } from './bench/query-meter.js';
import { judge, renderReport, type BenchReport, type RawName } from './bench/report.js';
import { createScratchDatabase, deadlocksOf } from './bench/scratch-database.js';
import { readSettings, RESULTS_DIR, type BenchSettings } from './bench/settings.js';
import { runStocktakePhase } from './bench/stocktake-phase.js';
import { runAuditPhase } from './bench/audit-phase.js';

const SUBMIT_CLIENTS = 8;
const HOT_CLIENTS = 50;
const SCAN_CLIENTS = 50;
const EXECUTE_CLIENTS = 8;

const loadText = () => loadavg().map((n) => n.toFixed(2)).join(' ');
const log = (text: string) => console.error(`[bench] ${text}`);

interface Run {
  settings: BenchSettings;
  product: Product;
  generator: LoadGenerator;
  rawDb: { url: string; name: string };
  raw: Partial<Record<RawName, RawResult>>;
  phases: PhaseResult[];
}

const wanted = (settings: BenchSettings, phase: string) => !settings.only || settings.only.has(phase);

async function baseline(run: Run, name: RawName, script: string, args: string[]): Promise<void> {
  log(`pgbench ${script} ${args.join(' ')}`);
  run.raw[name] = await pgbench(run.rawDb, script, args);
  log(`  ${run.raw[name]!.tps.toFixed(1)} tps`);
}

async function phase(run: Run, spec: PhaseSpec): Promise<void> {
  log(`product ${spec.name}: ${spec.what}`);
  const result = await runPhase(run.settings, run.product, run.generator, spec);
  run.phases.push(result);
  for (const step of result.load.steps) log(`  ${step.label}: ${step.rps} rps, p50 ${step.p50Ms} ms, p99 ${step.p99Ms} ms`);
}

async function phases(run: Run): Promise<void> {
  const { settings, product } = run;
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
    await baseline(run, 'reserve', 'reserve.sql', ['-D', `range=${WIDE_ROWS}`, '-c', '8', '-j', '2', '-T', T]);
    await phase(run, submit);
  } else if (needsPending) {
    // Scan and execute work on pending requests of the 10,000 rows: the submit phase makes them, or this.
    const durationMs = Math.max(2, settings.seconds / 2) * 1000;
    await run.generator.run({ baseUrl: product.baseUrl, tokens: applicants.slice(0, SUBMIT_CLIENTS), warmupMs: 0, durationMs, workload: submit.workload });
  }
  const wideRequestsUpTo = await lastRequestId(product);

  if (wanted(settings, 'hot')) {
    await baseline(run, 'reserveHot', 'reserve.sql', ['-D', `range=${HOT_ROWS}`, '-c', '8', '-j', '2', '-T', T]);
    await phase(run, {
      name: 'hot',
      what: `3 of ${HOT_ROWS} hot rows per request`,
      clients: HOT_CLIENTS,
      rows: HOT_ROWS,
      tokens: applicants,
      workload: { kind: 'submit', materialIds: product.hotMaterialIds, linesPerRequest: 3 },
    });
  }

  const pending = needsPending ? await pendingRequests(product, wideRequestsUpTo) : null;
  if (pending && wanted(settings, 'scan')) {
    await baseline(run, 'select', 'select.sql', ['-D', `range=${WIDE_ROWS}`, '-c', '8', '-j', '2', '-T', T, '-M', 'prepared']);
    await phase(run, {
      name: 'scan',
      what: `random barcodes of ${WIDE_ROWS} rows against request ${pending.scanRequestId}`,
      clients: SCAN_CLIENTS,
      rows: WIDE_ROWS,
      tokens: operators,
      workload: { kind: 'scan', barcodes: product.wideBarcodes, requestId: pending.scanRequestId },
    });
  }
  if (wanted(settings, 'floor')) {
    await phase(run, {
      name: 'floor',
      what: 'GET /auth/me: token check, user reload and one primary-key read over HTTP (no target: the floor under every call)',
      clients: SCAN_CLIENTS,
      rows: 0,
      tokens: operators,
      workload: { kind: 'get', label: 'auth/me', path: '/api/v1/auth/me' },
    });
  }
  if (pending && wanted(settings, 'execute')) {
    await phase(run, {
      name: 'execute',
      what: `approve + execute of ${pending.jobs.length} prepared requests (3 rows each)`,
      clients: EXECUTE_CLIENTS,
      rows: WIDE_ROWS,
      tokens: managers,
      workload: { kind: 'execute', jobs: pending.jobs },
    });
  }
  if (wanted(settings, 'stocktake')) {
    log('product stocktake: merged-list, generate-missing and export of a 5,000-item count (target 2 s each)');
    await runStocktakePhase(product, log);
  }
  if (pending && wanted(settings, 'audit')) {
    log('product audit: export of 100,000 audit records while scans run (target 5 s, 256 MB, scan p99 within 2x)');
    const workload = { kind: 'scan' as const, barcodes: product.wideBarcodes, requestId: pending.scanRequestId };
    await runAuditPhase(settings, product, run.generator, { tokens: operators.slice(0, SCAN_CLIENTS), workload }, log);
  }
}

async function main(): Promise<void> {
  const settings = readSettings();
  mkdirSync(RESULTS_DIR, { recursive: true });
  const startedAt = new Date().toISOString();
  const loadBefore = loadText();
  log(`load average ${loadBefore} on ${cpus().length} CPUs; ${settings.seconds} s per phase`);

  installQueryMeter();
  const rawDb = await createScratchDatabase(settings.databaseUrl, 'bench_raw');
  const raw: Run['raw'] = {};
  const results: PhaseResult[] = [];
  let product: Product | undefined;
  let generator: LoadGenerator | undefined;
  const deadlocks = { product: 0, raw: 0 };
  try {
    await setupRawTables(rawDb.url);
    log('starting the inventory service on a fresh database and seeding it');
    product = await startProduct(settings.databaseUrl, Math.max(SUBMIT_CLIENTS, HOT_CLIENTS, SCAN_CLIENTS, EXECUTE_CLIENTS));
    generator = await startLoadGenerator();
    await phases({ settings, product, generator, rawDb, raw, phases: results });
  } finally {
    generator?.close();
    await product?.close();
    // Backends report their statistics when they end: read the counters after the pool closed.
    if (product) deadlocks.product = await deadlocksOf(settings.databaseUrl, product.database.name);
    deadlocks.raw = await deadlocksOf(settings.databaseUrl, rawDb.name);
    if (!settings.keepDatabases) {
      await product?.database.drop();
      await rawDb.drop();
    }
  }

  const report: BenchReport = {
    startedAt,
    seconds: settings.seconds,
    load: { before: loadBefore, after: loadText(), cpus: cpus().length },
    raw,
    phases: results,
    verdicts: judge(raw, results, deadlocks.product),
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
