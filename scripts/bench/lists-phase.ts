import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { randomBytes } from 'node:crypto';
import pg from 'pg';
import { createLockStore } from '@wms/platform';
import { buildInventoryApp, type InventoryApp } from '../../apps/inventory/src/app.js';
import { loadInventoryConfig } from '../../apps/inventory/src/config.js';
import { createScratchDatabase } from './scratch-database.js';
import type { BenchSettings } from './settings.js';
import { percentile, round } from './stats.js';

/**
 * The lists phase of `npm run bench` (issue 14 point 5): the stock list and the material list at warehouse
 * scale on PostgreSQL. Seeds by SQL 20,000 materials of three companies and 100,000 stock rows in a location
 * hierarchy like 'A区/03排/2层/05位', builds the inventory app in this process (logger off) on its own scratch
 * database, and times each list variant over HTTP with sequential requests after a warm-up, as a
 * WAREHOUSE_MGR of the largest company. Target: p99 ≤ 50 ms for every variant. A keyword of two CJK
 * characters has no trigram to use (pg_trgm needs three), so it scans: it is measured and judged all the same.
 */
export const LIST_MATERIALS = 20_000;
export const LIST_STOCK_ROWS = 100_000;
const TARGET_P99_MS = 50;
const WARMUP_REQUESTS = 20;
const MEASURED_REQUESTS = 200;
const COMPANY = 'ALPHA';
const PAGE_SIZE = 20;

export interface ListVariantResult {
  name: string;
  path: string;
  /** `total` of the answer: how many rows the filter matched. */
  total: number;
  requests: number;
  p50Ms: number;
  p99Ms: number;
  maxMs: number;
  pass: boolean;
}

export interface ListsPhaseResult {
  materials: number;
  stockRows: number;
  targetP99Ms: number;
  variants: ListVariantResult[];
  pass: boolean;
}

/** A deterministic pseudo-random 0..n-1 per seed and salt, so names, companies and places are not correlated. */
const pick = (salt: string, n: number) => `(abs(hashtext('${salt}' || g)) % ${n})`;

/** Materials of three companies (60 / 30 / 10 %), with names, specs and categories a keyword can hit. */
const SEED_MATERIALS = `
insert into materials (name, spec_model, category, unit, company_name, reference_price)
select (array['电阻','电容','电感','二极管','三极管','连接器','继电器','保险丝','深沟球轴承','内六角螺丝',
              '六角螺母','弹簧垫片','压缩弹簧','直齿轮','同步带','温度传感器','步进电机','微动开关','接线端子','屏蔽线缆'])[1 + ${pick('name', 20)}]
       || ' ' || (array['贴片','插件','工业级','高精度','防水','标准'])[1 + ${pick('grade', 6)}] || ' ' || lpad(g::text, 5, '0'),
       (array['RC','CL','LQH','SS','MMBT','XH','HF','MF','6205','M'])[1 + ${pick('spec', 10)}]
       || lpad(${pick('specno', 100000)}::text, 5, '0') || '-' || (array['0402','0603','0805','1206','2RS','ZZ'])[1 + ${pick('size', 6)}],
       (array['电子','机械','电气'])[1 + ${pick('dept', 3)}] || '/' || (array['被动元件','紧固件','传动','线材','传感'])[1 + ${pick('cat', 5)}],
       (array['pcs','个','米','套'])[1 + ${pick('unit', 4)}],
       case when ${pick('company', 10)} < 6 then 'ALPHA' when ${pick('company', 10)} < 9 then 'BETA' else 'GAMMA' end,
       (${pick('price', 500)} + 1) / 10.0
  from generate_series(1, $1::int) g`;

/**
 * Stock rows spread over the materials (five per material on average), all three kinds and statuses, in
 * zones A区–F区 / 01排–20排 / 1层–5层 / 01位–10位. Products carry a serial number and no batch.
 */
const SEED_STOCK = `
with m as (select array_agg(id order by id) ids from materials)
insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity, status,
                        warehouse_location, batch_number, serial_number, in_date)
select kind, 'SKU' || lpad(g::text, 7, '0'), m.ids[1 + ${pick('material', LIST_MATERIALS)}], 100, 80, 100,
       case when g % 50 = 0 then '不良品' when g % 20 = 0 then '冻结' else '在库' end,
       (array['A','B','C','D','E','F'])[1 + ${pick('zone', 6)}] || '区/' || lpad((1 + ${pick('row', 20)})::text, 2, '0') || '排/'
       || (1 + ${pick('level', 5)})::text || '层/' || lpad((1 + ${pick('slot', 10)})::text, 2, '0') || '位',
       case when kind = 'stock_product' then null else 'B' || to_char(date '2024-01-01' + ${pick('day', 400)}, 'YYYYMMDD') || '-' || (g % 7) end,
       case when kind = 'stock_product' then 'SN' || lpad(g::text, 8, '0') end,
       date '2024-01-01' + ${pick('day', 400)}
  from m, generate_series(1, $1::int) g,
       lateral (select (array['stock_buy','stock_buy','stock_buy','stock_semi','stock_product'])[1 + ${pick('kind', 5)}] as kind) k`;

type Manager = { id: number; name: string };

/** Seeds materials, stock rows and one WAREHOUSE_MGR of the largest company; statistics fresh for the planner. */
async function seed(url: string): Promise<Manager> {
  const sql = new pg.Client({ connectionString: url });
  await sql.connect();
  try {
    await sql.query(SEED_MATERIALS, [LIST_MATERIALS]);
    await sql.query(SEED_STOCK, [LIST_STOCK_ROWS]);
    const { rows } = await sql.query<Manager>(
      `insert into users (username, password_hash, name, role, company_name)
       values ('lists_bench_mgr', '!bench-no-login', '列表基准 仓管', 'WAREHOUSE_MGR', $1) returning id, name`,
      [COMPANY],
    );
    await sql.query('vacuum analyze');
    return rows[0]!;
  } finally {
    await sql.end();
  }
}

/** The service as deployed, in this process: production settings, no logger, the in-process lock store. */
async function startService(databaseUrl: string): Promise<{ service: InventoryApp; baseUrl: string }> {
  const config = loadInventoryConfig({
    NODE_ENV: 'production',
    DATABASE_URL: databaseUrl,
    JWT_SECRET: randomBytes(24).toString('base64url'),
    DATA_DIR: tmpdir(),
    SEED_DEMO: '0',
  });
  const service = await buildInventoryApp(config, { logger: false, locks: createLockStore(undefined), dispatcher: { enabled: false } });
  await service.app.listen({ host: '127.0.0.1', port: 0 });
  const { port } = service.app.server.address() as AddressInfo;
  return { service, baseUrl: `http://127.0.0.1:${port}` };
}

interface ListClient {
  get(path: string): Promise<{ ms: number; total: number }>;
}

function listClient(baseUrl: string, token: string): ListClient {
  return {
    async get(path) {
      const started = performance.now();
      const response = await fetch(`${baseUrl}/api/v1${path}`, { headers: { authorization: `Bearer ${token}` } });
      const body = (await response.json()) as { total?: number; items?: unknown[] };
      const ms = performance.now() - started;
      if (response.status !== 200 || !Array.isArray(body.items)) throw new Error(`lists phase: GET ${path} answered ${response.status} ${JSON.stringify(body).slice(0, 200)}`);
      return { ms, total: body.total ?? 0 };
    },
  };
}

/** Warm-up, then sequential requests: one at a time, so each time is the list's own latency. */
async function measure(client: ListClient, name: string, path: string): Promise<ListVariantResult> {
  let total = 0;
  for (let i = 0; i < WARMUP_REQUESTS; i++) total = (await client.get(path)).total;
  const times: number[] = [];
  for (let i = 0; i < MEASURED_REQUESTS; i++) times.push((await client.get(path)).ms);
  times.sort((a, b) => a - b);
  const p99Ms = round(percentile(times, 99), 1);
  return { name, path, total, requests: times.length, p50Ms: round(percentile(times, 50), 1), p99Ms, maxMs: round(times.at(-1) ?? 0, 1), pass: p99Ms <= TARGET_P99_MS };
}

const lastPage = (total: number) => Math.max(1, Math.ceil(total / PAGE_SIZE));
const pageOf = (path: string, page: number) => `${path}${path.includes('?') ? '&' : '?'}limit=${PAGE_SIZE}&page=${page}`;
const q = encodeURIComponent;

/** Every variant the issue names; middle and last pages follow from the totals the first pages report. */
async function variantsOf(client: ListClient): Promise<Array<[string, string]>> {
  const stock = '/stock/list';
  const materials = '/inbound/base';
  const stockTotal = (await client.get(pageOf(stock, 1))).total;
  const materialTotal = (await client.get(pageOf(materials, 1))).total;
  const location = `${stock}?warehouse_location=${q('C区/07排')}`;
  const locationTotal = (await client.get(pageOf(location, 1))).total;
  return [
    ['stock plain, page 1', pageOf(stock, 1)],
    ['stock plain, middle page', pageOf(stock, Math.ceil(lastPage(stockTotal) / 2))],
    ['stock plain, last page', pageOf(stock, lastPage(stockTotal))],
    ['stock plain, page 1 (/inbound/stock/list)', pageOf('/inbound/stock/list', 1)],
    ['stock location subtree, page 1', pageOf(location, 1)],
    ['stock location subtree, last page', pageOf(location, lastPage(locationTotal))],
    ['stock location zone, page 1', pageOf(`${stock}?warehouse_location=${q('E区')}`, 1)],
    ['stock keyword material name', pageOf(`${stock}?keyword=${q('温度传感')}`, 1)],
    ['stock keyword sku prefix', pageOf(`${stock}?keyword=${q('sku00123')}`, 1)],
    ['stock keyword batch', pageOf(`${stock}?keyword=${q('B20240315')}`, 1)],
    ['stock keyword location', pageOf(`${stock}?keyword=${q('03排/2层')}`, 1)],
    ['stock keyword two characters', pageOf(`${stock}?keyword=${q('轴承')}`, 1)],
    ['stock keyword no match', pageOf(`${stock}?keyword=${q('不存在的物料XYZ')}`, 1)],
    ['material plain, page 1', pageOf(materials, 1)],
    ['material plain, middle page', pageOf(materials, Math.ceil(lastPage(materialTotal) / 2))],
    ['material plain, last page', pageOf(materials, lastPage(materialTotal))],
    ['material keyword name', pageOf(`${materials}?keyword=${q('步进电机')}`, 1)],
    ['material keyword spec', pageOf(`${materials}?keyword=${q('mmbt1')}`, 1)],
    ['material keyword two characters', pageOf(`${materials}?keyword=${q('弹簧')}`, 1)],
    ['material category subtree', pageOf(`${materials}?category=${q('电子')}`, 1)],
  ];
}

export async function runListsPhase(settings: BenchSettings, databaseUrl: string, log: (text: string) => void): Promise<ListsPhaseResult> {
  const database = await createScratchDatabase(databaseUrl, 'bench_lists');
  try {
    const { service, baseUrl } = await startService(database.url);
    try {
      const started = performance.now();
      const manager = await seed(database.url);
      log(`  lists: seeded ${LIST_MATERIALS} materials and ${LIST_STOCK_ROWS} stock rows in ${Math.round(performance.now() - started)} ms`);
      const token = await service.deps.tokens.sign({ sub: String(manager.id), role: 'WAREHOUSE_MGR', company_name: COMPANY, name: manager.name });
      const client = listClient(baseUrl, token);
      const planned = await variantsOf(client);
      // One pass over every variant first: the first one measured would otherwise pay for the JIT and caches.
      for (const [, path] of planned) for (let i = 0; i < WARMUP_REQUESTS; i++) await client.get(path);
      const variants: ListVariantResult[] = [];
      for (const [name, path] of planned) {
        const result = await measure(client, name, path);
        variants.push(result);
        log(`  ${name.padEnd(44)} total ${String(result.total).padStart(6)}  p50 ${result.p50Ms} ms  p99 ${result.p99Ms} ms  max ${result.maxMs} ms  ${result.pass ? 'PASS' : 'MISS'}`);
      }
      const pass = variants.every((variant) => variant.pass);
      log(`  lists ${pass ? 'PASS' : 'MISS'} (target: p99 ≤ ${TARGET_P99_MS} ms per variant, ${MEASURED_REQUESTS} sequential requests each)`);
      return { materials: LIST_MATERIALS, stockRows: LIST_STOCK_ROWS, targetP99Ms: TARGET_P99_MS, variants, pass };
    } finally {
      await service.close();
    }
  } finally {
    if (settings.keepDatabases) log(`  lists: kept database ${database.name}`);
    else await database.drop();
  }
}
