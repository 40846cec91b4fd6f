import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import { countStockRows, createMaterial, queryRows, stockAuditRecords, stockIn, type MaterialJson } from './fixtures.js';

const STOCK = '/api/v1/inbound/stock';

describe('stock-in (POST /inbound/stock)', () => {
  let t: TestInventory;
  let inbound: TestUser;
  let manager: TestUser;
  let sales: TestUser;
  let betaInbound: TestUser;
  let material: MaterialJson;
  let betaMaterial: MaterialJson;
  /** An approved purchase request of `material`, completed by the first stock-in below. */
  let purchaseId: number;

  beforeAll(async () => {
    t = await buildTestInventory();
    [inbound, manager, sales, betaInbound] = await Promise.all([
      t.user('INBOUND', 'ALPHA'),
      t.user('WAREHOUSE_MGR', 'ALPHA'),
      t.user('SALES', 'ALPHA'),
      t.user('INBOUND', 'BETA'),
    ]);
    material = await createMaterial(t, manager.token, { name: '贴片电阻', spec_model: '10K 0603', unit: '个', referencePrice: 0.05 });
    betaMaterial = await createMaterial(t, betaInbound.token, { category: 'BETA/电子' });
    const purchase = await t.request('POST', '/api/v1/purchase', { token: manager.token, body: { items: [{ base_id: material.id, quantity: 12.5 }] } });
    purchaseId = purchase.json().requests[0].id;
    await t.request('PATCH', `/api/v1/purchase/${purchaseId}/approve`, { token: manager.token, body: { action: 'approve' } });
  });
  afterAll(() => t.close());

  it('creates a row with stock = available = in_quantity, status 在库, joined material fields', async () => {
    const row = await stockIn(t, manager.token, {
      source_table: 'stock_buy',
      base_id: material.id,
      in_quantity: 12.5,
      warehouse_location: ' A / 01 /03/ ',
      batch_number: ' LOT-1 ',
      in_date: '2025-03-01',
      production_date: '2025-02-15',
      request_id: purchaseId,
      unit_cost: 1.25,
      remark: '首批',
    });
    expect(row).toMatchObject({
      source_table: 'stock_buy',
      base_id: material.id,
      material_name: '贴片电阻',
      spec_model: '10K 0603',
      unit: '个',
      category: 'ALPHA/电子/电阻',
      company_name: 'ALPHA',
      stock_quantity: 12.5,
      available_quantity: 12.5,
      in_quantity: 12.5,
      status: '在库',
      warehouse_location: 'A/01/03',
      batch_number: 'LOT-1',
      serial_number: null,
      in_date: '2025-03-01',
      production_date: '2025-02-15',
      request_id: purchaseId,
      unit_cost: 1.25,
      referencePrice: 0.05,
      remark: '首批',
    });
    expect(typeof row.id).toBe('number');
    expect(row.created_at).toMatch(/^\d{4}-\d{2}-\d{2}T/);
    const back = await t.request('GET', `${STOCK}/${row.id}`, { token: manager.token });
    expect(back.json()).toEqual(row);
  });

  it('generates a readable, unique sku per kind and defaults in_date to today (Beijing)', async () => {
    const rows = await Promise.all(
      (['stock_buy', 'stock_semi', 'stock_product'] as const).map((kind) =>
        stockIn(t, inbound.token, { source_table: kind, base_id: material.id, in_quantity: 1 }),
      ),
    );
    const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10).replaceAll('-', '');
    expect(rows.map((row) => row.sku[0])).toEqual(['B', 'S', 'P']);
    for (const row of rows) {
      expect(row.sku).toMatch(new RegExp(`^[BSP]${today}-[2-9A-HJ-NP-Z]{6}$`));
      expect(row.in_date).toBe(`${today.slice(0, 4)}-${today.slice(4, 6)}-${today.slice(6)}`);
    }
    expect(new Set(rows.map((row) => row.sku)).size).toBe(3);
  });

  it('gives a product row an empty batch number and keeps its serial number', async () => {
    const row = await stockIn(t, inbound.token, { source_table: 'stock_product', base_id: material.id, in_quantity: 1, serial_number: 'SN-0001' });
    expect(row.batch_number).toBe('');
    expect(row.serial_number).toBe('SN-0001');
    const empty = await stockIn(t, inbound.token, { source_table: 'stock_product', base_id: material.id, batch_number: '' });
    expect(empty.batch_number).toBe('');
  });

  it('refuses a sku that exists in any kind with 409 DUPLICATE and writes nothing', async () => {
    await stockIn(t, inbound.token, { source_table: 'stock_buy', base_id: material.id, sku: 'DUP-0001' });
    const before = await countStockRows(t);
    const again = await t.request('POST', STOCK, {
      token: inbound.token,
      body: { source_table: 'stock_product', base_id: material.id, in_quantity: 1, sku: 'DUP-0001' },
    });
    expect(again.statusCode).toBe(409);
    expect(again.json()).toMatchObject({ code: 'DUPLICATE', sku: 'DUP-0001' });
    expect(again.json().msg).toContain('DUP-0001');
    // another company's caller collides too: skus are unique across companies
    const beta = await t.request('POST', STOCK, {
      token: betaInbound.token,
      body: { source_table: 'stock_semi', base_id: betaMaterial.id, in_quantity: 1, sku: ' DUP-0001 ' },
    });
    expect(beta.statusCode).toBe(409);
    expect(await countStockRows(t)).toBe(before);
  });

  it('serves the same handler on POST /stock', async () => {
    const response = await t.request('POST', '/api/v1/stock', {
      token: inbound.token,
      body: { source_table: 'stock_semi', base_id: material.id, in_quantity: 3, batch_number: 'S-1' },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json()).toMatchObject({ source_table: 'stock_semi', stock_quantity: 3, batch_number: 'S-1' });
  });

  it('removes price fields the caller may not read', async () => {
    const row = await stockIn(t, inbound.token, { base_id: material.id, unit_cost: 9.9 });
    expect(row).not.toHaveProperty('unit_cost');
    expect(row).not.toHaveProperty('referencePrice');
    const asManager = await t.request('GET', `${STOCK}/${row.id}`, { token: manager.token });
    expect(asManager.json()).toMatchObject({ unit_cost: 9.9, referencePrice: 0.05 });
  });

  it('makes a cross-domain caller name the company (contract §3), whose material it must be; nothing is written otherwise', async () => {
    const before = await countStockRows(t);
    const unnamed = await t.request('POST', STOCK, { token: t.adminToken, body: { source_table: 'stock_buy', base_id: betaMaterial.id, in_quantity: 1 } });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.json()).toMatchObject({ code: 'COMPANY_REQUIRED', field: 'company_name', msg: expect.any(String) });
    const pinned = await t.request('POST', STOCK, {
      token: t.adminToken,
      body: { source_table: 'stock_buy', base_id: betaMaterial.id, in_quantity: 1, company_name: 'ALPHA' },
    });
    expect(pinned.statusCode).toBe(404);
    expect(await countStockRows(t)).toBe(before);
    const row = await stockIn(t, t.adminToken, { base_id: betaMaterial.id, company_name: 'BETA' });
    expect(row.company_name).toBe('BETA');
  });

  it('records an audit entry (库存管理, caller, request url)', async () => {
    const row = await stockIn(t, inbound.token, { base_id: material.id, sku: 'AUDIT-IN-1' });
    const records = await stockAuditRecords(t, row.id);
    expect(records).toHaveLength(1);
    expect(records[0]).toMatchObject({
      module: '库存管理',
      action: 'CREATE',
      target_name: 'AUDIT-IN-1',
      username: inbound.username,
      company_name: 'ALPHA',
      request_url: STOCK,
    });
    expect(records[0]!.details).toHaveProperty('created');
  });

  describe('refusals write nothing', () => {
    const good = () => ({ source_table: 'stock_buy', base_id: material.id, in_quantity: 5, sku: `BAD-${Math.random()}` });

    const cases: Array<[string, () => Record<string, unknown>, number, string, string?]> = [
      ['zero quantity', () => ({ ...good(), in_quantity: 0 }), 400, 'VALIDATION_FAILED', 'in_quantity'],
      ['negative quantity', () => ({ ...good(), in_quantity: -2 }), 400, 'VALIDATION_FAILED', 'in_quantity'],
      ['quantity as a string', () => ({ ...good(), in_quantity: '5' }), 400, 'VALIDATION_FAILED', 'in_quantity'],
      ['missing quantity', () => ({ source_table: 'stock_buy', base_id: material.id }), 400, 'VALIDATION_FAILED', 'in_quantity'],
      ['unknown kind', () => ({ ...good(), source_table: 'stock_other' }), 400, 'VALIDATION_FAILED', 'source_table'],
      ['base_id as a string', () => ({ ...good(), base_id: String(material.id) }), 400, 'VALIDATION_FAILED', 'base_id'],
      ['impossible date', () => ({ ...good(), in_date: '2025-02-30' }), 400, 'VALIDATION_FAILED', 'in_date'],
      ['date with time', () => ({ ...good(), production_date: '2025-02-01T10:00:00Z' }), 400, 'VALIDATION_FAILED', 'production_date'],
      ['negative unit cost', () => ({ ...good(), unit_cost: -1 }), 400, 'VALIDATION_FAILED', 'unit_cost'],
      ['blank sku', () => ({ ...good(), sku: '   ' }), 400, 'VALIDATION_FAILED', 'sku'],
      ['sku with inner space', () => ({ ...good(), sku: 'A B' }), 400, 'VALIDATION_FAILED', 'sku'],
      ['batch number on a product row', () => ({ ...good(), source_table: 'stock_product', batch_number: 'LOT' }), 400, 'VALIDATION_FAILED', 'batch_number'],
      ['serial number on a purchased row', () => ({ ...good(), serial_number: 'SN-9' }), 400, 'VALIDATION_FAILED', 'serial_number'],
      ['request_id on a semi row', () => ({ ...good(), source_table: 'stock_semi', request_id: 3 }), 400, 'VALIDATION_FAILED', 'request_id'],
      ['unknown material', () => ({ ...good(), base_id: 999999 }), 404, 'NOT_FOUND'],
      ['material of another company', () => ({ ...good(), base_id: betaMaterial.id }), 404, 'NOT_FOUND'],
    ];

    it.each(cases)('%s', async (_label, body, status, code, field) => {
      const before = await countStockRows(t);
      const response = await t.request('POST', STOCK, { token: inbound.token, body: body() });
      expect(response.statusCode).toBe(status);
      expect(response.json()).toMatchObject({ code });
      expect(response.json().msg).toEqual(expect.any(String));
      if (field) expect(response.json().field).toBe(field);
      expect(await countStockRows(t)).toBe(before);
    });

    it('malformed JSON', async () => {
      const before = await countStockRows(t);
      const response = await t.request('POST', STOCK, {
        token: inbound.token,
        body: '{"source_table": "stock_buy", ',
        headers: { 'content-type': 'application/json' },
      });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String) });
      expect(await countStockRows(t)).toBe(before);
    });

    it('a caller without inbound_stock:operation (SALES) is 403, no token is 401', async () => {
      const before = await countStockRows(t);
      const forbidden = await t.request('POST', STOCK, { token: sales.token, body: good() });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().code).toBe('FORBIDDEN');
      const anonymous = await t.request('POST', STOCK, { body: good() });
      expect(anonymous.statusCode).toBe(401);
      expect(await countStockRows(t)).toBe(before);
    });
  });

  it('keeps decimal quantities exact', async () => {
    const row = await stockIn(t, inbound.token, { base_id: material.id, in_quantity: 0.1 });
    const updated = await t.request('PUT', `${STOCK}/${row.id}`, { token: inbound.token, body: { stock_quantity: 0.3 } });
    expect(updated.json()).toMatchObject({ stock_quantity: 0.3, available_quantity: 0.3, in_quantity: 0.1 });
    const [stored] = await queryRows<{ a: string }>(t, sql`select available_quantity::text as a from stock_rows where id = ${row.id}`);
    expect(stored!.a).toBe('0.3');
  });
});
