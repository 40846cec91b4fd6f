import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyFor, MemoryLockStore, type AcquireResult } from '@wms/platform';
import { approvedBorrow, borrowedLine } from './borrow-fixtures.js';
import { createMaterial, flowCast, queryRows, stockIn, type FlowCast, type StockRowJson } from './fixtures.js';
import { buildTestInventory, type TestInventory } from './helpers.js';
import { approvedRequest, materialWithStock, rowState, submitOk } from './outbound-fixtures.js';
import { approvedStockScrap, execute, stockScrapOk } from './scrap-fixtures.js';
import { multipartBody } from './support/multipart.js';
import { syntheticImage } from './support/synthetic-images.js';

/**
 * Spec §7 (errors) and §8 (limits) with contract §2 and §8 "Error codes", across the routes: where a
 * module suite checks a case on its own route, this file checks it on every route the case names.
 */

/** The in-process lock store, remembering how long each lock was asked for (spec §8: 5 seconds). */
class RecordingLocks extends MemoryLockStore {
  readonly ttls: number[] = [];
  override acquire(key: string, ttlMs: number): Promise<AcquireResult> {
    this.ttls.push(ttlMs);
    return super.acquire(key, ttlMs);
  }
}

const INTERNAL_KEY = 'internal-key-errors-1';
const locks = new RecordingLocks();
let t: TestInventory;
let w: FlowCast;

beforeAll(async () => {
  t = await buildTestInventory({ config: { internalApiKey: INTERNAL_KEY }, locks });
  w = await flowCast(t);
});
afterAll(() => t.close());

const api = (path: string) => `/api/v1${path}`;
const count = async (table: string) => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from ${sql.identifier(table)}`))[0]!.n;
const counts = async (tables: string[]) => Object.fromEntries(await Promise.all(tables.map(async (table) => [table, await count(table)])));

async function changeStatus(row: StockRowJson, status: string) {
  const changed = await t.request('POST', api(`/inbound/stock/${row.id}/change-status`), { token: t.adminToken, body: { status } });
  expect(changed.statusCode, changed.body).toBe(200);
}

async function openSession(): Promise<number> {
  const started = await t.request('POST', api('/draft/start-new'), { token: w.mgr.token, body: { mode: 'open', scope_type: 'full' } });
  expect(started.statusCode, started.body).toBe(201);
  return started.json().session_id as number;
}

/**
 * Every endpoint that takes a scanned barcode (contract §3 "any scan endpoint"), as the ALPHA manager:
 * the lookups, the stocktake counts and the three executions.
 */
async function scanEndpoints(barcode: string) {
  const { material } = await materialWithStock(t, 'ALPHA', [5]);
  const outbound = await approvedRequest(w, [{ base_id: material.id, quantity: 1 }]);
  const borrow = await approvedBorrow(w, [{ base_id: material.id, quantity: 1 }]);
  const scrapRow = (await materialWithStock(t, 'ALPHA', [5])).rows[0]!;
  const scrap = await approvedStockScrap(w, scrapRow, 1);
  const sessionId = await openSession();
  const line = [{ barcode, quantity: 1 }];
  return [
    ['GET', `/outbound/scan?barcode=${barcode}&request_id=${outbound.id}`],
    ['GET', `/inbound/stock/scan?barcode=${barcode}`],
    ['GET', `/stock/scan?barcode=${barcode}`],
    ['GET', `/scrap/scan?barcode=${barcode}`],
    ['GET', `/scan?session_id=${sessionId}&barcode=${barcode}`],
    ['POST', '/draft/add', { session_id: sessionId, barcode, quantity: 1 }],
    ['POST', '/outbound', { request_id: outbound.id, lines: line }],
    ['POST', '/borrow/dispatch', { request_id: borrow.id, borrower_id: w.sales.id, lines: line }],
    ['POST', `/scrap/request/${scrap.id}/execute`, { scans: line }],
  ] as const;
}

const EXECUTION_TABLES = ['trans_outbound', 'trans_borrow', 'trans_scrap', 'stocktake_drafts'];

describe('spec §7: barcodes on every scan endpoint', () => {
  it('an unknown barcode is 404 NOT_FOUND and writes nothing', async () => {
    const calls = await scanEndpoints('NO-SUCH-BARCODE-1');
    const before = await counts(EXECUTION_TABLES);
    for (const [method, path, body] of calls) {
      const response = await t.request(method, api(path), { token: w.mgr.token, body });
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(404);
      expect(response.json().code, path).toBe('NOT_FOUND');
    }
    expect(await counts(EXECUTION_TABLES)).toEqual(before);
  });

  it("another company's barcode is 403 OTHER_COMPANY naming the company, and writes nothing", async () => {
    const beta = (await materialWithStock(t, 'BETA', [5])).rows[0]!;
    const calls = await scanEndpoints(beta.sku);
    const before = await counts(EXECUTION_TABLES);
    for (const [method, path, body] of calls) {
      const response = await t.request(method, api(path), { token: w.mgr.token, body });
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(403);
      expect(response.json(), path).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA' });
    }
    expect(await counts(EXECUTION_TABLES)).toEqual(before);
    expect(await rowState(t, beta.id)).toEqual({ stock: 5, available: 5, status: '在库' });
  });

  it('a row not 在库 is 400 NOT_IN_STOCK on the outbound scan and the three executions; stocktake counts take any status', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5, 5]);
    const [allocated, frozen] = rows as [StockRowJson, StockRowJson];
    const outbound = await approvedRequest(w, [{ base_id: material.id, quantity: 1 }]);
    const borrow = await approvedBorrow(w, [{ base_id: material.id, quantity: 1 }]);
    const scrap = await approvedStockScrap(w, frozen, 1);
    await changeStatus(frozen, '冻结');
    const line = [{ barcode: frozen.sku, quantity: 1 }];
    const before = await counts(EXECUTION_TABLES);
    for (const [method, path, body] of [
      ['GET', `/outbound/scan?barcode=${frozen.sku}&request_id=${outbound.id}`],
      ['POST', '/outbound', { request_id: outbound.id, lines: line }],
      ['POST', '/borrow/dispatch', { request_id: borrow.id, borrower_id: w.sales.id, lines: line }],
      ['POST', `/scrap/request/${scrap.id}/execute`, { scans: line }],
    ] as const) {
      const response = await t.request(method, api(path), { token: w.mgr.token, body });
      expect(response.statusCode, `${method} ${path}: ${response.body}`).toBe(400);
      expect(response.json(), path).toMatchObject({ code: 'NOT_IN_STOCK', status: '冻结' });
    }
    expect(await counts(EXECUTION_TABLES)).toEqual(before);
    // the reservations stay: outbound 1 on the first row, borrow 1 and scrap 1 on the frozen one
    expect(await rowState(t, frozen.id)).toEqual({ stock: 5, available: 3, status: '冻结' });
    expect(await rowState(t, allocated.id)).toEqual({ stock: 5, available: 4, status: '在库' });

    const sessionId = await openSession();
    const counted = await t.request('POST', api('/draft/add'), { token: w.mgr.token, body: { session_id: sessionId, barcode: frozen.sku, quantity: 5 } });
    expect(counted.statusCode, counted.body).toBe(200);
  });
});

describe('spec §7 400: per-row available would go negative', () => {
  it('is STOCK_SHORTAGE carrying needed and remaining on every submission and execution, and writes nothing', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [3, 2]);
    const [big, small] = rows as [StockRowJson, StockRowJson];
    const outbound = await approvedRequest(w, [{ base_id: material.id, quantity: 3 }]); // reserves the 3 on `big`
    const borrow = await approvedBorrow(w, [{ base_id: material.id, quantity: 2 }]); // reserves the 2 on `small`
    const tables = ['outbound_requests', 'borrow_requests', 'scrap_requests', 'trans_outbound', 'trans_borrow'];
    const before = await counts(tables);
    const cases = [
      ['/outbound/request', { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 1 }], remark: 'short' }, 1, 0],
      ['/borrow/request', { items: [{ base_id: material.id, quantity: 1 }], remark: 'short' }, 1, 0],
      ['/scrap/request', { reason: 'short', items: [{ source_table: 'stock_buy', stock_id: big.id, scrap_qty: 1 }], approver_ids: [w.mgr.id] }, 1, 0],
      // scanning the row another request holds: only what this request reserved there comes back
      ['/outbound', { request_id: outbound.id, lines: [{ barcode: small.sku, quantity: 3 }] }, 3, 0],
      ['/borrow/dispatch', { request_id: borrow.id, borrower_id: w.sales.id, lines: [{ barcode: big.sku, quantity: 2 }] }, 2, 0],
    ] as const;
    for (const [path, body, needed, remaining] of cases) {
      const response = await t.request('POST', api(path), { token: w.mgr.token, body });
      expect(response.statusCode, `${path}: ${response.body}`).toBe(400);
      expect(response.json(), path).toMatchObject({ code: 'STOCK_SHORTAGE', needed, remaining });
    }
    expect(await counts(tables)).toEqual(before);
    expect(await rowState(t, big.id)).toEqual({ stock: 3, available: 0, status: '在库' });
    expect(await rowState(t, small.id)).toEqual({ stock: 2, available: 0, status: '在库' });
  });
});

describe('spec §7 400: cross-domain caller without company', () => {
  it('is COMPANY_REQUIRED naming company_name on every create whose body carries the company, and writes nothing', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5]);
    const tables = ['materials', 'stock_rows', 'outbound_requests', 'borrow_requests', 'scrap_requests', 'purchase_requests', 'suppliers', 'stocktake_sessions'];
    const before = await counts(tables);
    for (const [path, body] of [
      ['/inbound/base', { name: '无公司物料', category: 'ALPHA/五金' }],
      ['/inbound/stock', { source_table: 'stock_buy', base_id: material.id, in_quantity: 1, warehouse_location: 'A/01' }],
      ['/outbound/request', { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 1 }] }],
      ['/borrow/request', { items: [{ base_id: material.id, quantity: 1 }] }],
      ['/scrap/request', { reason: '无公司', items: [{ source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 }] }],
      ['/purchase', { items: [{ base_id: material.id, quantity: 1 }] }],
      ['/suppliers', { name: '无公司供应商' }],
      ['/draft/start-new', { mode: 'open', scope_type: 'full' }],
    ] as const) {
      const response = await t.request('POST', api(path), { token: t.adminToken, body });
      expect(response.statusCode, `${path}: ${response.body}`).toBe(400);
      expect(response.json(), path).toMatchObject({ code: 'COMPANY_REQUIRED', field: 'company_name' });
    }
    expect(await counts(tables)).toEqual(before);
  });
});

describe('spec §7: withdraw and close', () => {
  it('of a status that cannot be withdrawn or closed is 400 STATUS_NOT_ALLOWED in every flow, and changes nothing', async () => {
    const shipped = await materialWithStock(t, 'ALPHA', [5]);
    const outbound = await approvedRequest(w, [{ base_id: shipped.material.id, quantity: 1 }]);
    const executed = await t.request('POST', api('/outbound'), {
      token: w.op.token,
      body: { request_id: outbound.id, lines: [{ barcode: shipped.rows[0]!.sku, quantity: 1 }] },
    });
    expect(executed.statusCode, executed.body).toBe(201);
    const { request: borrow } = await borrowedLine(w, 1, 5);
    const scrapRow = (await materialWithStock(t, 'ALPHA', [5])).rows[0]!;
    const scrap = await approvedStockScrap(w, scrapRow, 1);
    expect((await execute(w, scrap.id, { scans: [{ barcode: scrapRow.sku, quantity: 1 }] })).statusCode).toBe(200);

    for (const [path, token, status] of [
      [`/outbound/request/${outbound.id}/withdraw`, w.sales.token, 3],
      [`/outbound/request/${outbound.id}/close`, w.mgr.token, 3],
      [`/borrow/request/${borrow.id}/withdraw`, w.sales.token, 3],
      [`/borrow/request/${borrow.id}/close`, w.mgr.token, 3],
      [`/transactions/borrow/request/${borrow.id}/withdraw`, w.sales.token, 3],
      [`/scrap/request/${scrap.id}/withdraw`, w.op.token, 3],
    ] as const) {
      const response = await t.request('POST', api(path), { token });
      expect(response.statusCode, `${path}: ${response.body}`).toBe(400);
      expect(response.json(), path).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status });
    }
  });

  it("of someone else's request is 403 NOT_OWNER in every flow, and changes nothing", async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const outbound = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }]);
    const borrow = await approvedBorrow(w, [{ base_id: material.id, quantity: 1 }]);
    const scrap = await stockScrapOk(w, rows[0]!, 1);
    for (const path of [`/outbound/request/${outbound.id}/withdraw`, `/borrow/request/${borrow.id}/withdraw`, `/scrap/request/${scrap.id}/withdraw`]) {
      const response = await t.request('POST', api(path), { token: w.sales2.token });
      expect(response.statusCode, `${path}: ${response.body}`).toBe(403);
      expect(response.json().code, path).toBe('NOT_OWNER');
    }
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 10, available: 7, status: '在库' });
  });
});

describe('spec §7 401', () => {
  it('a missing or invalid token is 401 UNAUTHENTICATED; so is a missing or wrong X-API-Key, and nothing runs', async () => {
    for (const headers of [{}, { authorization: 'Bearer not.a.token' }, { authorization: 'Basic YWRtaW46eA==' }] as Array<Record<string, string>>) {
      const response = await t.request('GET', api('/inbound/base'), { headers });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    const before = await count('scrap_requests');
    const body = { track_ref: 'TR-401', outbound_id: 1, quantity: 1, reason: '生产不良' };
    for (const headers of [{}, { 'x-api-key': 'wrong-key' }, { authorization: `Bearer ${t.adminToken}` }] as Array<Record<string, string>>) {
      const response = await t.request('POST', api('/internal/scrap/production'), { headers, body });
      expect(response.statusCode).toBe(401);
      expect(response.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    }
    expect(await count('scrap_requests')).toBe(before);
  });
});

describe('spec §7 409 and §8 idempotency lock', () => {
  it('a held lock is 409 LOCK_HELD and writes nothing; every lock is asked for 5 seconds', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [5]);
    const body = { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 1 }], remark: '锁' };
    const key = idempotencyKeyFor(w.sales.id, 'POST', api('/outbound/request'), body);
    const held = await locks.acquire(key, 60_000);
    const before = await count('outbound_requests');
    const response = await t.request('POST', api('/outbound/request'), { token: w.sales.token, body });
    expect(response.statusCode).toBe(409);
    expect(response.json()).toMatchObject({ code: 'LOCK_HELD' });
    expect(await count('outbound_requests')).toBe(before);
    await locks.release(key, (held as { token: string }).token);

    locks.ttls.length = 0;
    expect((await t.request('POST', api('/outbound/request'), { token: w.sales.token, body })).statusCode).toBe(201);
    expect(locks.ttls).toEqual([5000]);
  });
});

describe('spec §8: recommend-locations defaults', () => {
  it('counts the last 30 days and answers the top 50 when neither is given', async () => {
    const material = await createMaterial(t, w.mgr.token);
    const zone = `REC${Math.random().toString(36).slice(2, 6)}`;
    const daysAgo = (n: number) => new Date(Date.now() - n * 86_400_000 + 8 * 3_600_000).toISOString().slice(0, 10);
    for (let i = 0; i < 51; i++) await stockIn(t, w.mgr.token, { base_id: material.id, in_quantity: 1, warehouse_location: `${zone}/${i}` });
    await stockIn(t, w.mgr.token, { base_id: material.id, in_quantity: 1, warehouse_location: `${zone}/OLD`, in_date: daysAgo(40) });

    const recommend = async (query = '') => {
      const response = await t.request('GET', api(`/stocktake/recommend-locations${query}`), { token: w.mgr.token });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json() as Array<{ full_path: string }>).map((location) => location.full_path);
    };
    const plain = await recommend();
    expect(plain.length).toBe(50);
    expect(plain).not.toContain(`${zone}/OLD`);
    expect(await recommend('?top_n=500')).not.toContain(`${zone}/OLD`);
    expect(await recommend('?top_n=500&days=45')).toContain(`${zone}/OLD`);
  });
});

describe('contract §2: paging', () => {
  it('every paged list answers limit 20 by default and caps limit and pageSize at 200', async () => {
    const sessionId = await openSession();
    const { material, rows } = await materialWithStock(t, 'ALPHA', [1]);
    const child = await createMaterial(t, w.mgr.token);
    const bom = await t.request('POST', api('/bom/save'), { token: w.mgr.token, body: { parent_id: material.id, items: [{ child_id: child.id, quantity: 1 }] } });
    expect(bom.statusCode, bom.body).toBe(200);
    const ids: Record<string, string> = { '/bom/versions/{id}/serials': String(bom.json().bom_version_id) };
    const values: Record<string, string> = { session_id: String(sessionId), keyword: 'x', id: String(rows[0]!.id), parent_id: String(material.id) };
    const document = (await t.request('GET', api('/openapi.json'))).json() as {
      paths: Record<string, { get?: { parameters?: Array<{ name: string; in: string; required?: boolean }>; responses: Record<string, { content?: Record<string, unknown> }> } }>;
    };
    const lists = Object.entries(document.paths).filter(([, item]) => {
      const names = (item.get?.parameters ?? []).filter((p) => p.in === 'query').map((p) => p.name);
      const answer = item.get?.responses['200']?.content?.['application/json'] as { schema?: { format?: string } } | undefined;
      return names.includes('limit') && answer && answer.schema?.format !== 'binary'; // exports ignore paging
    });
    expect(lists.length).toBeGreaterThan(30);
    for (const [path, item] of lists) {
      const parameters = item.get!.parameters ?? [];
      let url = path;
      const query = new URLSearchParams();
      for (const parameter of parameters.filter((p) => p.required)) {
        const value = (parameter.name === 'id' && ids[path.replace('/api/v1', '')]) || values[parameter.name];
        expect(value, `${path} needs ${parameter.name}`).toBeDefined();
        if (parameter.in === 'path') url = url.replace(`{${parameter.name}}`, value!);
        else query.set(parameter.name, value!);
      }
      const at = (extra: string) => `${url}?${[query.toString(), extra].filter(Boolean).join('&')}`;
      const plain = await t.request('GET', at(''), { token: t.adminToken });
      expect(plain.statusCode, `${path}: ${plain.body}`).toBe(200);
      const paged = 'limit' in plain.json();
      if (paged) expect(plain.json().limit, path).toBe(20);
      for (const extra of ['limit=500', ...(parameters.some((p) => p.name === 'pageSize') ? ['pageSize=500'] : [])]) {
        const capped = await t.request('GET', at(extra), { token: t.adminToken });
        expect(capped.statusCode, `${path}?${extra}: ${capped.body}`).toBe(200);
        if (paged) expect(capped.json().limit, `${path}?${extra}`).toBe(200);
        else expect(Array.isArray(capped.json()) ? capped.json().length : 0, path).toBeLessThanOrEqual(200);
      }
    }
  });
});

describe('contract §2: sizes and the error shape', () => {
  it('a JSON body over 1 MiB is 413 {msg, code}; one just under it is read (and judged by its schema)', async () => {
    const before = await count('materials');
    const over = await t.request('POST', api('/inbound/base'), { token: w.mgr.token, body: { name: 'x', category: 'ALPHA/五金', remark: 'y'.repeat(1024 * 1024) } });
    expect(over.statusCode).toBe(413);
    expect(over.json()).toEqual({ msg: expect.any(String), code: 'PAYLOAD_TOO_LARGE' });
    const under = await t.request('POST', api('/inbound/base'), { token: w.mgr.token, body: { name: 'x', category: 'ALPHA/五金', remark: 'y'.repeat(1024 * 1024 - 100) } });
    expect(under.statusCode).toBe(400);
    expect(under.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'remark' });
    expect(await count('materials')).toBe(before);
  });

  it('an upload over 20 MiB is 413 {msg, code, field}; one of 20 MiB is read', async () => {
    const material = await createMaterial(t, w.mgr.token);
    const upload = (size: number) => {
      const { body, headers } = multipartBody({}, { filename: 'big.png', contentType: 'image/png', data: Buffer.alloc(size, 1) });
      return t.request('POST', api(`/inbound/base/${material.id}/images`), { token: w.mgr.token, body, headers });
    };
    const over = await upload(20 * 1024 * 1024 + 1);
    expect(over.statusCode).toBe(413);
    expect(over.json()).toEqual({ msg: expect.any(String), code: 'PAYLOAD_TOO_LARGE', field: 'file' });
    const limit = await upload(20 * 1024 * 1024);
    expect(limit.statusCode).toBe(400); // read, then refused as no image
    expect(limit.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file' });
    expect(await count('material_images')).toBe(0);
  });

  it('a NUL character in an upload form (a text field or the file name) is VALIDATION_FAILED naming the field, never a 500', async () => {
    const material = await createMaterial(t, w.mgr.token);
    const png = await syntheticImage(31);
    const named = multipartBody({}, { filename: 'front\u0000.png', contentType: 'image/png', data: png });
    const upload = await t.request('POST', api(`/inbound/base/${material.id}/images`), { token: w.mgr.token, ...named });
    expect(upload.statusCode, upload.body).toBe(400);
    expect(upload.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file' });
    expect(await count('material_images')).toBe(0);

    const form = multipartBody({ company: 'AL\u0000PHA' }, { filename: 'query.png', contentType: 'image/png', data: png });
    const search = await t.request('POST', api('/common/image-search'), { token: t.adminToken, ...form });
    expect(search.statusCode, search.body).toBe(400);
    expect(search.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'company' });
  });

  it('a multipart form the parser cannot read (truncated, no boundary) is 400 naming the file, never a 500', async () => {
    const { body, headers } = multipartBody({ type: 'material', mode: 'create' }, { filename: 'import.xlsx', data: Buffer.from('PK not really') });
    const truncated = body.subarray(0, body.length - 20);
    const noBoundary = { 'content-type': 'multipart/form-data' };
    for (const [sent, sentHeaders] of [[truncated, headers], [Buffer.from('garbage'), noBoundary]] as const) {
      const response = await t.request('POST', api('/import/preview'), { token: w.mgr.token, body: sent, headers: sentHeaders });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file' });
    }
  });
});
