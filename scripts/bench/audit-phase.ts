import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { LoadGenerator } from './load-client.js';
import type { LoadResult, Workload } from './load-protocol.js';
import { COMPANY, type Product } from './product.js';
import { profileLines } from './report.js';
import { RESULTS_DIR, type BenchSettings } from './settings.js';

/**
 * The audit phase of `npm run bench` (issue 12): GET /audit/logs/export of 100,000 records on PostgreSQL
 * while the scan load runs. Seeds the records by SQL (every snapshot shape, the stock module's records
 * naming real stock rows and materials so the per-batch lookups do real work), measures the scan p99
 * alone, then runs exports back to back over HTTP while the same scan load is measured again.
 * Targets: each export within 5 s and 256 MB of peak memory growth of the service process; scans within
 * twice their p99 without the export. Results go to .bench/audit-export.json and the log.
 */
export const AUDIT_ROWS = 100_000;
const TARGET_MS = 5_000;
const TARGET_MB = 256;
const SCAN_P99_FACTOR = 2;
const MEMORY_SAMPLE_MS = 20;

export interface AuditExportTiming {
  ms: number;
  bytes: number;
  peakGrowthMb: number;
}

export interface AuditPhaseResult {
  rows: number;
  exports: AuditExportTiming[];
  scanAlone: { rps: number; p99Ms: number };
  scanDuringExport: { rps: number; p99Ms: number };
  targets: { ms: number; mb: number; scanP99Factor: number };
  pass: boolean;
}

/** `rows` audit records of COMPANY by SQL, the newest 10 ms apart. */
export async function seedAuditRecords(product: Pick<Product, 'sql'>, rows = AUDIT_ROWS): Promise<void> {
  await product.sql.query(
    `with m as (select min(id) as first from materials), s as (select min(id) as first from stock_rows)
     insert into audit_logs (module, action, table_name, target_id, target_name, username, company_name, request_url, details, created_at)
     select case when g % 4 = 3 then '出库管理' else '库存管理' end,
            (array['CREATE', 'UPDATE', 'DELETE', '修改'])[g % 4 + 1],
            case when g % 4 = 3 then 'outbound_requests' else 'stock_rows' end,
            (s.first + g % 10000)::text, 'W' || lpad((g % 10000 + 1)::text, 5, '0'),
            'warehouse_mgr_bench_' || (g % 8 + 1), $1, '/api/v1/inbound/stock/' || (s.first + g % 10000) || '?from=bench',
            case g % 4
              when 0 then jsonb_build_object('created', jsonb_build_object('sku', 'W' || g, 'base_id', m.first + g % 10000,
                     'in_quantity', 10, 'stock_quantity', 10, 'warehouse_location', 'A-01', 'remark', '<急件>'))
              when 1 then jsonb_build_object('changes', jsonb_build_array(
                     jsonb_build_object('field', 'stock_quantity', 'old', g % 50 + 1, 'new', g % 50 + 2),
                     jsonb_build_object('field', 'remark', 'old', null, 'new', '')),
                   'snapshot', jsonb_build_object('sku', 'W' || g, 'base_id', m.first + g % 10000))
              when 2 then jsonb_build_object('deleted_snapshot', jsonb_build_object('sku', 'W' || g, 'base_id', m.first + g % 10000,
                     'stock_quantity', 3.5, 'warehouse_location', 'B-02'))
              else jsonb_build_object('changes', jsonb_build_array(jsonb_build_object('field', 'status', 'old', 1, 'new', 3)),
                   'payload', jsonb_build_object('items', jsonb_build_array(jsonb_build_object('base_id', m.first, 'password', 'never-out'))))
            end,
            now() - ($2::int - g) * interval '10 milliseconds'
       from m, s, generate_series(1, $2::int) g`,
    [COMPANY, rows],
  );
  await product.sql.query('analyze audit_logs');
}

/**
 * Resident memory of the service's processes (it runs in a process of its own, see product-server.ts),
 * read from /proc: cheap enough to sample every 20 ms. Null where /proc is not there.
 */
function serviceRss(pids: readonly number[]): number | null {
  let total: number | null = null;
  for (const pid of pids) {
    try {
      const kb = /^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1];
      total = (total ?? 0) + Number(kb ?? 0) * 1024;
    } catch {
      // ended meanwhile (a short-lived helper process of the tree): not the service
    }
  }
  return total;
}

/** One export over real HTTP, the body read and dropped as it streams; peak RSS growth of the service's processes. */
async function timedExport(product: Product, token: string): Promise<AuditExportTiming> {
  const pids = product.server.pids();
  const memory = () => serviceRss(pids) ?? 0;
  const before = memory();
  let peak = before;
  const sampler = setInterval(() => (peak = Math.max(peak, memory())), MEMORY_SAMPLE_MS);
  const started = performance.now();
  try {
    const response = await fetch(`${product.baseUrl}/api/v1/audit/logs/export`, { headers: { authorization: `Bearer ${token}` } });
    if (!response.ok || !response.body) throw new Error(`audit export answered ${response.status}: ${await response.text()}`);
    let bytes = 0;
    for await (const chunk of response.body) bytes += (chunk as Uint8Array).byteLength;
    return { ms: Math.round(performance.now() - started), bytes, peakGrowthMb: Math.round((Math.max(peak, memory()) - before) / 1e6) };
  } finally {
    clearInterval(sampler);
  }
}

/**
 * With BENCH_PROFILE, the service's event loop profiled over one window (scans alone, scans beside the
 * exports) and logged as the report prints profiles: what the exports take from the scans shows as the difference.
 */
async function profiled<T>(settings: BenchSettings, product: Product, window: string, log: (text: string) => void, run: () => Promise<T>): Promise<T> {
  if (!settings.profile) return run();
  await product.server.profile.start(settings.profile);
  const result = await run();
  for (const summary of await product.server.profile.stop(RESULTS_DIR, window, settings.profile)) {
    for (const line of profileLines(summary, `the service (process ${summary.pid}) during "${window}" (${summary.file})`)) log(`  ${line}`);
  }
  return result;
}

const scanStats = (load: LoadResult) => {
  const step = load.steps.find((s) => s.label === 'scan');
  return { rps: step?.rps ?? 0, p99Ms: step?.p99Ms ?? 0 };
};

export async function runAuditPhase(
  settings: BenchSettings,
  product: Product,
  generator: LoadGenerator,
  scan: { tokens: string[]; workload: Workload },
  log: (text: string) => void,
): Promise<AuditPhaseResult> {
  await seedAuditRecords(product);
  const token = product.users.managers[0]!;
  await timedExport(product, token); // warm-up: plans, JIT, pool
  const plan = (durationMs: number) => ({
    baseUrl: product.baseUrl,
    tokens: scan.tokens,
    warmupMs: settings.warmupSeconds * 1000,
    durationMs,
    workload: scan.workload,
  });
  const scanAlone = scanStats(await profiled(settings, product, 'audit-scans-alone', log, () => generator.run(plan(Math.max(5, settings.seconds / 2) * 1000))));

  // Exports run back to back for the whole measured window, so every measured scan overlaps one.
  const exports: AuditExportTiming[] = [];
  let measuring = true;
  let exporting: Promise<void> = Promise.resolve();
  const during = await profiled(settings, product, 'audit-scans-during-exports', log, () =>
    generator.run(plan(settings.seconds * 1000), async () => {
      exporting = (async () => {
        while (measuring) exports.push(await timedExport(product, token));
      })();
    }),
  );
  measuring = false;
  await exporting;
  const scanDuringExport = scanStats(during);

  const pass =
    exports.length > 0 &&
    exports.every((e) => e.ms <= TARGET_MS && e.peakGrowthMb <= TARGET_MB) &&
    scanDuringExport.p99Ms <= SCAN_P99_FACTOR * scanAlone.p99Ms;
  for (const e of exports) log(`  export of ${AUDIT_ROWS} records: ${e.ms} ms, ${(e.bytes / 1e6).toFixed(1)} MB file, peak memory +${e.peakGrowthMb} MB`);
  log(`  scans: alone p99 ${scanAlone.p99Ms} ms (${scanAlone.rps} rps), during exports p99 ${scanDuringExport.p99Ms} ms (${scanDuringExport.rps} rps)`);
  log(`  audit export ${pass ? 'PASS' : 'MISS'} (targets: ≤ ${TARGET_MS} ms, ≤ ${TARGET_MB} MB, scan p99 ≤ ${SCAN_P99_FACTOR}× alone)`);
  const result: AuditPhaseResult = {
    rows: AUDIT_ROWS,
    exports,
    scanAlone,
    scanDuringExport,
    targets: { ms: TARGET_MS, mb: TARGET_MB, scanP99Factor: SCAN_P99_FACTOR },
    pass,
  };
  writeFileSync(join(RESULTS_DIR, 'audit-export.json'), JSON.stringify(result, null, 2));
  return result;
}
