import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Product } from './product.js';
import { RESULTS_DIR } from './settings.js';

/**
 * The stocktake phase of `npm run bench` (issue 10): a count of warehouse size on PostgreSQL. Seeds, by SQL,
 * 6,000 rows under STK/<aisle>/<slot> of one material, then per round starts an active-location session over
 * HTTP, seeds 5,000 counted items by SQL (every fifth one short), and times over HTTP, one call at a time:
 * merged-list pages (plain, diff filter, keyword), the export (while active, blind) and generate-missing
 * (1,000 missing rows, closes the session), then the export of the finished session. Target: each call
 * within 2 s. Results go to .bench/stocktake.json and the log.
 */
export const STOCKTAKE_ROWS = 6_000;
export const STOCKTAKE_COUNTED = 5_000;
const ROUNDS = 3;
const TARGET_MS = 2_000;

export interface StocktakeTiming {
  path: string;
  calls: number;
  medianMs: number;
  maxMs: number;
  pass: boolean;
}

export interface StocktakeResult {
  rows: number;
  counted: number;
  rounds: number;
  targetMs: number;
  timings: StocktakeTiming[];
  pass: boolean;
}

async function seedRows(product: Product): Promise<void> {
  await product.sql.query(
    `with m as (
       insert into materials (name, category, unit, company_name) values ('盘点基准物料', 'bench', 'pcs', 'ALPHA') returning id
     )
     insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity, status, warehouse_location)
     select 'stock_buy', 'STK-' || lpad(g::text, 5, '0'), m.id, 10, 10, 10, '在库',
            'STK/' || lpad((g % 40)::text, 2, '0') || '/' || lpad(g::text, 5, '0')
       from m, generate_series(1, $1::int) g`,
    [STOCKTAKE_ROWS],
  );
}

async function seedCounts(product: Product, sessionId: number): Promise<void> {
  await product.sql.query(
    `insert into stocktake_drafts (session_id, uuid, stock_id, source_table, base_id, user_id, quantity, scan_time, company_name, book_quantity, book_location)
     select $1, s.sku, s.id, s.source_table, s.base_id, 'bench', case when s.id % 5 = 0 then 9 else 10 end, now(), 'ALPHA',
            s.stock_quantity, s.warehouse_location
       from stock_rows s where s.sku like 'STK-%' order by s.id limit $2`,
    [sessionId, STOCKTAKE_COUNTED],
  );
  await product.sql.query('analyze stocktake_drafts');
}

async function timedCall(product: Product, token: string, method: string, path: string, body?: unknown): Promise<{ ms: number; json: unknown }> {
  const started = performance.now();
  const response = await fetch(`${product.baseUrl}/api/v1${path}`, {
    method,
    headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  });
  const payload = response.headers.get('content-type')?.includes('json') ? await response.json() : await response.arrayBuffer();
  const ms = performance.now() - started;
  if (!response.ok) throw new Error(`${method} ${path} answered ${response.status}: ${JSON.stringify(payload)}`);
  return { ms, json: payload };
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

export async function runStocktakePhase(product: Product, log: (text: string) => void): Promise<StocktakeResult> {
  const token = product.users.managers[0]!;
  await seedRows(product);
  await product.sql.query('analyze stock_rows');
  const samples = new Map<string, number[]>();
  const add = (path: string, ms: number) => samples.set(path, [...(samples.get(path) ?? []), ms]);
  for (let round = 0; round < ROUNDS; round++) {
    const started = await timedCall(product, token, 'POST', '/draft/start-new', {
      mode: 'blind', scope_type: 'active', scope_config: { locations: ['STK'] },
    });
    const sessionId = (started.json as { session_id: number }).session_id;
    await seedCounts(product, sessionId);
    for (const page of [1, 40, 120]) {
      add('merged-list page', (await timedCall(product, token, 'GET', `/draft/merged-list?session_id=${sessionId}&page=${page}&pageSize=50`)).ms);
    }
    add('merged-list keyword', (await timedCall(product, token, 'GET', `/draft/merged-list?session_id=${sessionId}&keyword=STK-0599`)).ms);
    add('export (active, blind)', (await timedCall(product, token, 'GET', `/export-stocktake?session_id=${sessionId}`)).ms);
    const closed = await timedCall(product, token, 'POST', '/stocktake/generate-missing', { session_id: sessionId });
    const generated = (closed.json as { generated: number }).generated;
    if (generated !== STOCKTAKE_ROWS - STOCKTAKE_COUNTED) throw new Error(`generate-missing wrote ${generated} rows`);
    add('generate-missing', closed.ms);
    add('merged-list page (finished, diff)', (await timedCall(product, token, 'GET', `/draft/merged-list?session_id=${sessionId}&status_filter=diff&page=5&pageSize=50`)).ms);
    add('export (finished)', (await timedCall(product, token, 'GET', `/export-stocktake?session_id=${sessionId}`)).ms);
  }
  const timings = [...samples].map(([path, values]) => {
    const maxMs = Math.round(Math.max(...values));
    return { path, calls: values.length, medianMs: Math.round(median(values)), maxMs, pass: maxMs <= TARGET_MS };
  });
  for (const timing of timings) log(`  ${timing.path}: median ${timing.medianMs} ms, max ${timing.maxMs} ms (${timing.calls} calls) ${timing.pass ? 'ok' : `over ${TARGET_MS} ms`}`);
  const result = { rows: STOCKTAKE_ROWS, counted: STOCKTAKE_COUNTED, rounds: ROUNDS, targetMs: TARGET_MS, timings, pass: timings.every((t) => t.pass) };
  writeFileSync(join(RESULTS_DIR, 'stocktake.json'), JSON.stringify(result, null, 2));
  return result;
}
