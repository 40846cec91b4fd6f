import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createMaterial, queryRows, stockIn } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { materialWithStock, submitOk, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built));

const materialCount = async () => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from materials`))[0]!.n;

describe('validation messages', () => {
  it('are Chinese and still name the field', async () => {
    const response = await t.request('GET', '/api/v1/inbound/base?page=0', { token: w.mgr.token });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'page' });
    expect(response.json().msg).toBe('字段 page 不合法: 应当为 >= 1');
    // a page far past any list would overflow the offset in the database: named by the schema instead
    const huge = await t.request('GET', '/api/v1/users?page=100000000000000000000', { token: t.adminToken });
    expect(huge.statusCode).toBe(400);
    expect(huge.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'page' });

    const wrongType = await t.request('POST', '/api/v1/outbound/request', {
      token: w.sales.token,
      body: { outbound_type: 'USE', items: [{ base_id: 1, quantity: '5' }] },
    });
    expect(wrongType.statusCode).toBe(400);
    expect(wrongType.json().msg).toBe('字段 items.0.quantity 不合法: 应当是 number 类型');
  });

  it('list the allowed values of an enum', async () => {
    const response = await t.request('POST', '/api/v1/outbound/request', {
      token: w.sales.token,
      body: { outbound_type: 'GIFT', items: [{ base_id: 1, quantity: 1 }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json().msg).toMatch(/^字段 outbound_type 不合法: .*SALES, USE, PRODUCTION/);
  });
});

describe('paging limit', () => {
  it('is capped at 200, not refused, on every list', async () => {
    for (const url of ['/api/v1/inbound/base?limit=500', '/api/v1/outbound/request?limit=201', '/api/v1/stock/list?pageSize=1000']) {
      const response = await t.request('GET', url, { token: w.mgr.token });
      expect(response.statusCode, url).toBe(200);
      expect(response.json().limit, url).toBe(200);
    }
    expect((await t.request('GET', '/api/v1/inbound/base?limit=0', { token: w.mgr.token })).statusCode).toBe(400);
  });
});

describe('NUL characters', () => {
  it('are refused as VALIDATION_FAILED naming the field, in body, query and path, before anything is written', async () => {
    const before = await materialCount();
    const login = await t.request('POST', '/api/v1/auth/login', { body: { username: 'a\u0000b', password: 'x' } });
    expect(login.statusCode).toBe(400);
    expect(login.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'username' });

    const created = await t.request('POST', '/api/v1/inbound/base', {
      token: w.mgr.token,
      body: { name: '螺丝', category: 'ALPHA/五金', remark: 'x\u0000' },
    });
    expect(created.statusCode).toBe(400);
    expect(created.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'remark' });
    expect(await materialCount()).toBe(before);

    const query = await t.request('GET', '/api/v1/inbound/base?keyword=%00', { token: w.mgr.token });
    expect(query.statusCode).toBe(400);
    expect(query.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'keyword' });

    const scan = await t.request('GET', '/api/v1/inbound/stock/scan?barcode=A%00B', { token: w.mgr.token });
    expect(scan.statusCode).toBe(400);
    expect(scan.json().field).toBe('barcode');
  });
});

describe('an empty body sent as JSON', () => {
  const json = { 'content-type': 'application/json' };

  it('is no body: a call without one runs, a call that needs one answers its validation error', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [5]);
    const request = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }]);
    const approved = await t.request('POST', `/api/v1/outbound/request/${request.id}/approve`, { token: w.mgr.token, body: '', headers: json });
    expect(approved.statusCode, approved.body).toBe(200);
    expect(approved.json().status).toBe(1);

    const before = await materialCount();
    const created = await t.request('POST', '/api/v1/inbound/base', { token: w.mgr.token, body: '', headers: json });
    expect(created.statusCode).toBe(400);
    expect(created.json().code).toBe('VALIDATION_FAILED');
    expect(await materialCount()).toBe(before);

    const malformed = await t.request('POST', '/api/v1/inbound/base', { token: w.mgr.token, body: '{"name":', headers: json });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: '请求体不是合法的 JSON' });
  });
});

describe('null for a field that does not take null', () => {
  it('is as if the field had not been sent; a required one is then missing', async () => {
    const material = await createMaterial(t, w.mgr.token, { company_name: null, remark: null });
    expect(material).toMatchObject({ company_name: 'ALPHA', remark: null });
    const row = await stockIn(t, w.mgr.token, { base_id: material.id, sku: null, batch_number: null, in_quantity: 2.5 });
    expect(row.sku).toMatch(/\S/); // generated when absent (contract §4)
    expect(row).toMatchObject({ base_id: material.id, stock_quantity: 2.5, available_quantity: 2.5 });

    const before = await materialCount();
    const unnamed = await t.request('POST', '/api/v1/inbound/base', { token: w.mgr.token, body: { name: null, category: 'ALPHA/五金' } });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'name' });
    expect(await materialCount()).toBe(before);
  });
});

describe('the year 0000', () => {
  it('is a date the database cannot store: 400 naming the field, in bodies and list filters, nothing written', async () => {
    const material = await createMaterial(t, w.mgr.token, {});
    const stockRows = async () => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from stock_rows where base_id = ${material.id}`))[0]!.n;
    const stockIn = await t.request('POST', '/api/v1/inbound/stock', {
      token: w.mgr.token,
      body: { source_table: 'stock_buy', base_id: material.id, in_quantity: 1, warehouse_location: 'A/01/01', in_date: '0000-01-01' },
    });
    expect(stockIn.statusCode).toBe(400);
    expect(stockIn.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'in_date' });
    expect(await stockRows()).toBe(0);
    for (const [path, field] of [
      ['/api/v1/outbound/request?start_date=0000-01-01', 'start_date'],
      ['/api/v1/outbound?end_date=0000-12-31T08:00:00Z', 'end_date'],
    ] as const) {
      const list = await t.request('GET', path, { token: w.mgr.token });
      expect(list.statusCode, path).toBe(400);
      expect(list.json()).toMatchObject({ code: 'VALIDATION_FAILED', field });
    }
  });
});

describe('a query parameter sent empty', () => {
  it('is no filter; a required one is then missing', async () => {
    const all = await t.request('GET', '/api/v1/outbound/request?limit=200', { token: w.mgr.token });
    const unselected = await t.request('GET', '/api/v1/outbound/request?limit=200&status=&outbound_type=&start_date=', { token: w.mgr.token });
    expect(unselected.statusCode, unselected.body).toBe(200);
    expect(unselected.json().total).toBe(all.json().total);
    const scan = await t.request('GET', '/api/v1/inbound/stock/scan?barcode=', { token: w.mgr.token });
    expect(scan.statusCode).toBe(400);
    expect(scan.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'barcode' });
  });
});

describe('framework errors', () => {
  it('answer in the {msg, code} shape: undecodable URL, over-long path parameter', async () => {
    const badUrl = await t.request('GET', '/api/v1/inbound/stock/%E0%A4%A', { token: w.mgr.token });
    expect(badUrl.statusCode).toBe(400);
    expect(Object.keys(badUrl.json()).sort()).toEqual(['code', 'msg']);

    const longParam = await t.request('GET', `/api/v1/inbound/stock/${'9'.repeat(150)}`, { token: w.mgr.token });
    expect(longParam.statusCode).toBe(414);
    expect(longParam.json()).toEqual({ msg: '请求路径参数过长', code: 'URI_TOO_LONG' });
  });

  it('answer 431 in the {msg, code} shape over real HTTP', async () => {
    const address = await t.service.app.listen({ host: '127.0.0.1', port: 0 });
    const response = await fetch(`${address}/api/v1/health`, { headers: { 'x-filler': 'a'.repeat(20_000) } });
    expect(response.status).toBe(431);
    expect(await response.json()).toEqual({ msg: '请求头过大', code: 'HEADERS_TOO_LARGE' });
  });
});

describe('cross-domain company names', () => {
  it('refuse a company no user belongs to, and write nothing', async () => {
    const before = await materialCount();
    const typo = await t.request('POST', '/api/v1/inbound/base', {
      token: t.adminToken,
      body: { name: '螺丝', category: 'NOPE_CO/五金', company_name: 'NOPE_CO' },
    });
    expect(typo.statusCode).toBe(400);
    expect(typo.json()).toMatchObject({ code: 'UNKNOWN_COMPANY', company: 'NOPE_CO' });
    expect(await materialCount()).toBe(before);

    const known = await createMaterial(t, t.adminToken, { company_name: 'BETA' });
    expect(known.company_name).toBe('BETA');
  });
});

