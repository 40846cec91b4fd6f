import ExcelJS from 'exceljs';
import { sql } from 'drizzle-orm';
import { IDEMPOTENCY_TTL_MS, idempotencyKeyFor } from '@wms/platform';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from './fixtures.js';
import { buildTestInventory, type TestInventory } from './helpers.js';
import { ledgerCheck } from './ledger.js';
import { returnTableCounts, shipFromRow } from './returns-fixtures.js';
import {
  approveOk,
  execute,
  heldEntry,
  materialWithStock,
  ok,
  post,
  scrapApi,
  scrapCounts,
  scrapWorld,
  storedEntry,
  type ScrapRequestJson,
  type ScrapWorld,
} from './scrap-fixtures.js';

const KEY = 'internal-key-for-scrap-tests';

let t: TestInventory;
let w: ScrapWorld;

beforeAll(async () => {
  t = await buildTestInventory({ config: { internalApiKey: KEY } });
  w = await scrapWorld(t);
});
afterAll(() => t?.close());
afterEach(() => ledgerCheck(t));

interface RecordJson {
  id: number;
  request_id: number | null;
  source_table: string;
  sku: string;
  quantity: number;
  cost_at_scrap?: number;
  total_loss?: number;
  reason_category: string | null;
  track_ref: string | null;
  company_name: string;
  [field: string]: unknown;
}

const records = async (token: string, query = '') => {
  const response = await t.request('GET', scrapApi(`/records?limit=200${query}`), { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { items: RecordJson[]; total: number; page: number; limit: number };
};

/** A scrap of `quantity` of a fresh ALPHA row (unit cost 4), executed; answers the row and the request. */
async function scrapped(quantity: number, extra: { reason_category?: string } = {}) {
  const { rows } = await materialWithStock(t, 'ALPHA', [10], { unit_cost: 4 });
  const submitted = await ok<ScrapRequestJson>(
    await post(t, scrapApi('/request'), w.op.token, {
      reason: `记录 ${Math.random()}`,
      items: [{ source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: quantity }],
      approver_ids: [w.mgr.id],
      ...extra,
    }),
    201,
  );
  await approveOk(w, submitted.id);
  await ok(await execute(w, submitted.id, { scans: [{ barcode: rows[0]!.sku, quantity }] }));
  return { row: rows[0]!, request: submitted };
}

/** A record from before the category column existed (legacy data): no request, no category. */
async function legacyRecord(sku: string, company = 'ALPHA') {
  await t.service.deps.database.transaction({ actor: 'legacy-import' }, (tx) =>
    tx.execute(sql`insert into trans_scrap (source_table, stock_id, base_id, sku, material_name, quantity, cost_at_scrap, total_loss, reason, operator, company_name, scrapped_at)
                   values ('stock_buy', 1, 1, ${sku}, '旧物料', 2, 1.5, 3, '旧记录', 'old_user', ${company}, '2020-01-15T02:00:00Z')`),
  );
}

describe('GET /scrap/records', () => {
  it('pages the company’s records newest first with amounts for scrap_list:loss_amount holders only', async () => {
    const { row, request } = await scrapped(2);
    const page = await records(w.mgr.token, `&keyword=${row.sku}`);
    expect(page).toMatchObject({ total: 1, page: 1, limit: 200 });
    expect(page.items[0]).toMatchObject({
      request_id: request.id,
      source_table: 'stock_buy',
      stock_id: row.id,
      sku: row.sku,
      quantity: 2,
      cost_at_scrap: 4,
      total_loss: 8,
      reason_category: '库存报废',
      operator: w.mgr.username,
      company_name: 'ALPHA',
    });

    const supervisor = await t.user('SUPERVISOR', 'ALPHA');
    // INBOUND gets scrap_list without scrap_list:loss_amount (no default role has that combination)
    await t.request('PUT', '/api/v1/permissions/role/INBOUND', {
      token: t.adminToken,
      body: { permissions: ['material_list:operation', 'inbound_buy', 'inbound_stock:operation', 'inventory_stocktake:operation', 'op_borrow_apply', 'op_return:operation', 'scrap_apply', 'scrap_list'] },
    });
    const listed = await records(w.inbound.token, `&keyword=${row.sku}`);
    expect(listed.items).toHaveLength(1);
    expect(listed.items[0]).not.toHaveProperty('cost_at_scrap');
    expect(listed.items[0]).not.toHaveProperty('total_loss');
    expect((await records(supervisor.token, `&keyword=${row.sku}`)).items[0]).toHaveProperty('total_loss', 8);
    expect((await records(t.adminToken, `&keyword=${row.sku}`)).items[0]).toHaveProperty('total_loss', 8);

    for (const user of [w.op, w.sales]) expect((await t.request('GET', scrapApi('/records'), { token: user.token })).statusCode).toBe(403);
    expect((await records(w.betaMgr.token, `&keyword=${row.sku}`)).total).toBe(0);
  });

  it('库存报废 also matches records without a category; other categories match exactly', async () => {
    const legacySku = `LEGACY-${Date.now()}`;
    await legacyRecord(legacySku);
    const modern = await scrapped(1);
    const production = await scrapped(1, { reason_category: '生产报废' });
    const stock = (await records(w.mgr.token, `&reason_category=${encodeURIComponent('库存报废')}`)).items.map((item) => item.sku);
    expect(stock).toEqual(expect.arrayContaining([legacySku, modern.row.sku]));
    expect(stock).not.toContain(production.row.sku);
    const produced = (await records(w.mgr.token, `&reason_category=${encodeURIComponent('生产报废')}`)).items.map((item) => item.sku);
    expect(produced).toContain(production.row.sku);
    expect(produced).not.toContain(legacySku);
    const legacy = (await records(w.mgr.token, `&keyword=${legacySku}`)).items[0]!;
    expect(legacy).toMatchObject({ reason_category: null, request_id: null });

    const dated = await records(w.mgr.token, '&start_date=2020-01-15&end_date=2020-01-15');
    expect(dated.items.map((item) => item.sku)).toEqual([legacySku]);
    expect((await records(w.mgr.token, '&source_table=trans_borrow')).items.every((item) => item.source_table === 'trans_borrow')).toBe(true);
    for (const query of ['&reason_category=其他', '&source_table=stock', '&start_date=2020-13-01', '&page=0']) {
      const response = await t.request('GET', scrapApi(`/records?${query.slice(1)}`), { token: w.mgr.token });
      expect(response.statusCode, query).toBe(400);
    }
  });
});

describe('GET /scrap/records/export', () => {
  const readSheet = async (token: string, query = '') => {
    const response = await t.request('GET', scrapApi(`/records/export${query}`), { token });
    expect(response.statusCode, response.body).toBe(200);
    expect(response.headers['content-type']).toContain('spreadsheetml');
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.getWorksheet('报废记录')!;
    const rows: unknown[][] = [];
    sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    const fileName = decodeURIComponent(/filename\*=UTF-8''(.+)$/.exec(String(response.headers['content-disposition']))![1]!);
    return { fileName, headers: rows[0] as string[], data: rows.slice(1), count: sheet.rowCount - 1 };
  };

  it('writes every match (no paging) with the same filter; amount columns only with scrap_list:loss_amount', async () => {
    const { row } = await scrapped(3);
    const full = await readSheet(w.mgr.token, `?keyword=${row.sku}`);
    expect(full.fileName).toBe('报废记录.xlsx');
    expect(full.headers).toEqual(expect.arrayContaining(['报废时间', '条码', '物料名称', '报废数量', '单位成本', '损失金额', '原因类别']));
    expect(full.data).toHaveLength(1);
    const line = Object.fromEntries(full.headers.map((header, i) => [header, full.data[0]![i]]));
    expect(line).toMatchObject({ 条码: row.sku, 报废数量: 3, 单位成本: 4, 损失金额: 12, 原因类别: '库存报废', 公司: 'ALPHA' });

    const gated = await readSheet(w.inbound.token, `?keyword=${row.sku}`); // scrap_list without loss_amount (role edited above)
    expect(gated.headers).not.toContain('单位成本');
    expect(gated.headers).not.toContain('损失金额');
    expect(gated.data).toHaveLength(1);
    expect((await t.request('GET', scrapApi('/records/export'), { token: w.op.token })).statusCode).toBe(403);
    expect((await t.request('GET', scrapApi('/records/export?reason_category=x'), { token: w.mgr.token })).statusCode).toBe(400);
  });

  it('stops at 20,000 rows and says so in the file name', async () => {
    const sku = `BULK-${Date.now()}`;
    // fixture rows: triggers off for this transaction only (20,001 audit rows would only slow the test)
    await t.service.deps.database.transaction({ actor: 'bulk-fixture' }, async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`insert into trans_scrap (source_table, stock_id, base_id, sku, material_name, quantity, cost_at_scrap, total_loss, reason_category, operator, company_name, scrapped_at)
                     select 'stock_buy', 1, 1, ${sku} || '-' || n, '批量物料', 1, 0, 0, '生产报废', 'bulk', 'BULKCO', now() - n * interval '1 second'
                       from generate_series(1, 20001) as n`);
    });
    const admin = await readSheet(t.adminToken, '?company=BULKCO');
    expect(admin.count).toBe(20000);
    expect(admin.fileName).toContain('已截断');
    expect(admin.fileName).toContain('20001');
    expect(admin.fileName).toContain('20000');
    expect(admin.data[0]![admin.headers.indexOf('条码')]).toBe(`${sku}-1`); // newest first
    const under = await readSheet(t.adminToken, `?company=BULKCO&keyword=${sku}-1000`);
    expect(under.fileName).toBe('报废记录.xlsx');
    expect(under.count).toBe(11); // -1000 and -10000 … -10009
    await t.service.deps.database.transaction({ actor: 'bulk-fixture' }, async (tx) => {
      await tx.execute(sql`set local session_replication_role = replica`);
      await tx.execute(sql`delete from trans_scrap where company_name = 'BULKCO'`);
    });
  });
});

describe('POST /internal/scrap/production', () => {
  const produce = (body: Record<string, unknown>, headers: Record<string, string> = { 'x-api-key': KEY }) =>
    t.request('POST', '/api/v1/internal/scrap/production', { body, headers });

  it('returns the item as defective and submits a scrap request on the held quantity in one step, as system', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [10]);
    const line = await shipFromRow(w, rows[0]!, 4);
    const trackRef = `TR-${Date.now()}`;
    const response = await produce({ track_ref: trackRef, outbound_id: line.id, quantity: 3, reason: '装配损坏', is_defective: false, need_reissue: true, reissue_qty: 3 });
    const result = await ok<{ return: Record<string, unknown>; ledger_entry: { id: number; remaining_qty: number }; scrap_request: ScrapRequestJson }>(response, 201);
    expect(result.return).toMatchObject({ return_type: 'defective', quantity: 3, operator: 'system', company_name: 'ALPHA' });
    expect(result.ledger_entry).toMatchObject({ remaining_qty: 3, status: '待处理' });
    expect(result.scrap_request).toMatchObject({
      mode: 'auto',
      reason_category: '生产报废',
      track_ref: trackRef,
      company_name: 'ALPHA',
      applicant_id: w.sales.id, // the outbound line's applicant
      status: 0,
    });
    expect(result.scrap_request.items).toEqual([expect.objectContaining({ source_table: 'trans_defective_goods', stock_id: result.ledger_entry.id, scrap_qty: 3 })]);
    expect(result.scrap_request.allowed_approvers).toContain(w.mgr.id);
    const [reissues] = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from outbound_requests where source_return_id is not null`);
    expect(reissues!.n).toBe(0); // need_reissue is never read from the body
    const [audit] = await queryRows<{ username: string; company_name: string }>(
      t,
      sql`select username, company_name from audit_logs where table_name = 'scrap_requests' and target_id = ${String(result.scrap_request.id)}`,
    );
    expect(audit).toEqual({ username: 'system', company_name: 'ALPHA' });

    await approveOk(w, result.scrap_request.id);
    await ok(await execute(w, result.scrap_request.id));
    expect(await storedEntry(t, result.ledger_entry.id)).toMatchObject({ status: '已报废' });
    const [record] = (await records(w.mgr.token, `&keyword=${trackRef}`)).items;
    expect(record).toMatchObject({ track_ref: trackRef, reason_category: '生产报废', source_table: 'trans_defective_goods', quantity: 3 });
  });

  it('needs a unique track_ref: a repeat is 409 and writes nothing; bad bodies are 400', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [10]);
    const line = await shipFromRow(w, rows[0]!, 4);
    const trackRef = `TR-DUP-${Date.now()}`;
    await ok(await produce({ track_ref: trackRef, outbound_id: line.id, quantity: 1, reason: '首次' }), 201);
    const before = { ...(await scrapCounts(t)), ...(await returnTableCounts(t)) };
    const repeat = await produce({ track_ref: trackRef, outbound_id: line.id, quantity: 1, reason: '重复' });
    expect(repeat.statusCode).toBe(409);
    expect(repeat.json()).toMatchObject({ code: 'DUPLICATE', field: 'track_ref' });
    for (const body of [
      { outbound_id: line.id, quantity: 1, reason: 'x' },
      { track_ref: '', outbound_id: line.id, quantity: 1, reason: 'x' },
      { track_ref: '   ', outbound_id: line.id, quantity: 1, reason: 'x' },
      { track_ref: 'T-ZERO', outbound_id: line.id, quantity: 0, reason: 'x' },
      { track_ref: 'T-BLANK', outbound_id: line.id, quantity: 1, reason: '   ' },
    ]) {
      const response = await produce(body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    const tooMany = await produce({ track_ref: 'T-MANY', outbound_id: line.id, quantity: 4, reason: 'x' });
    expect(tooMany.statusCode).toBe(400);
    expect(tooMany.json().code).toBe('QUANTITY_EXCEEDS');
    expect((await produce({ track_ref: 'T-NONE', outbound_id: 99999999, quantity: 1, reason: 'x' })).statusCode).toBe(404);
    expect({ ...(await scrapCounts(t)), ...(await returnTableCounts(t)) }).toEqual(before);
  });

  it('takes a report without a reason (only track_ref is required, spec 4.4): the reason reads 生产报废', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const line = await shipFromRow(w, rows[0]!, 2);
    const response = await produce({ track_ref: `TR-NOREASON-${Date.now()}`, outbound_id: line.id, quantity: 1 });
    const result = await ok<{ return: Record<string, unknown>; scrap_request: ScrapRequestJson }>(response, 201);
    expect(result.return).toMatchObject({ reason: '生产报废', return_type: 'defective' });
    expect(result.scrap_request).toMatchObject({ reason: '生产报废', reason_category: '生产报废' });
  });

  it('holds the idempotency lock like every request submission (contract §8): a repeat while one runs is 409 LOCK_HELD and writes nothing', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [10]);
    const line = await shipFromRow(w, rows[0]!, 4);
    const body = { track_ref: `TR-LOCK-${Date.now()}`, outbound_id: line.id, quantity: 1, reason: '锁' };
    const key = idempotencyKeyFor('anonymous', 'POST', '/api/v1/internal/scrap/production', body);
    const held = await t.service.deps.locks.acquire(key, IDEMPOTENCY_TTL_MS);
    const before = { ...(await scrapCounts(t)), ...(await returnTableCounts(t)) };
    try {
      const repeat = await produce(body);
      expect(repeat.statusCode).toBe(409);
      expect(repeat.json().code).toBe('LOCK_HELD');
      expect({ ...(await scrapCounts(t)), ...(await returnTableCounts(t)) }).toEqual(before);
    } finally {
      await t.service.deps.locks.release(key, (held as { token: string }).token);
    }
    await ok(await produce(body), 201);
  });

  it('answers 401 without or with a wrong X-API-Key and 503 while the key setting is empty', async () => {
    const body = { track_ref: 'T-KEY', outbound_id: 1, quantity: 1, reason: 'x' };
    expect((await produce(body, {})).statusCode).toBe(401);
    const wrong = await produce(body, { 'x-api-key': 'wrong' });
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json().code).toBe('UNAUTHENTICATED');
    const bearerOnly = await t.request('POST', '/api/v1/internal/scrap/production', { token: t.adminToken, body });
    expect(bearerOnly.statusCode).toBe(401);
    const config = t.service.deps.config as { internalApiKey?: string };
    config.internalApiKey = '';
    try {
      const unset = await produce(body);
      expect(unset.statusCode).toBe(503);
      expect(unset.json().code).toBe('KEY_NOT_CONFIGURED');
    } finally {
      config.internalApiKey = KEY;
    }
  });
});

describe('removed direct scrap endpoints', () => {
  it('answer 410 ENDPOINT_REMOVED naming the replacement and change nothing', async () => {
    const { entry } = await heldEntry(w, 10, 2);
    const before = await scrapCounts(t);
    const cases: Array<[string, string]> = [
      ['/api/v1/scrap', '/scrap/request'],
      ['/api/v1/borrow/1/scrap', '/borrow/scrap-request'],
      ['/api/v1/transactions/borrow/1/scrap', '/borrow/scrap-request'],
      [`/api/v1/inbound/stock/defective/${entry.id}/scrap`, '/scrap-request'],
      [`/api/v1/stock/defective/${entry.id}/scrap`, '/scrap-request'],
    ];
    for (const [path, replacement] of cases) {
      const response = await post(t, path, w.mgr.token, { quantity: 1, reason: 'x' });
      expect(response.statusCode, path).toBe(410);
      expect(response.json()).toMatchObject({ code: 'ENDPOINT_REMOVED' });
      expect(response.json().replacement, path).toContain(replacement);
      expect(response.json().msg).toContain(replacement);
    }
    expect((await t.request('POST', '/api/v1/scrap', { body: {} })).statusCode).toBe(401);
    expect(await scrapCounts(t)).toEqual(before);
    expect(await storedEntry(t, entry.id)).toEqual({ remaining_qty: '2', status: '待处理' });
  });
});

describe('isolation of records and ledger requests', () => {
  it('another company’s ledger request cannot be executed and its records stay invisible', async () => {
    const beta = await heldEntry(w, 10, 2, { company: 'BETA' });
    const request = await ok<ScrapRequestJson>(
      await post(t, `/api/v1/inbound/stock/defective/${beta.entry.id}/scrap-request`, w.betaMgr.token, { quantity: 2, reason: 'x', approver_ids: [w.betaMgr.id] }),
      201,
    );
    await ok(await post(t, scrapApi(`/request/${request.id}/approve`), w.betaMgr.token));
    expect((await execute(w, request.id)).statusCode).toBe(404);
    await ok(await execute(w, request.id, undefined, w.betaMgr));
    expect((await records(w.mgr.token, `&keyword=${beta.entry.sku}`)).total).toBe(0);
    expect((await records(w.betaMgr.token, `&keyword=${beta.entry.sku}`)).total).toBe(1);
  });
});
