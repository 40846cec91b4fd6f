import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS, idempotencyKeyFor } from '@wms/platform';
import { createMaterial, queryRows, useTestApp, type MaterialJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { countPurchases, decideOk, PURCHASE, purchaseCast, submitOk, submitPurchase, type PurchaseCast, type PurchaseJson } from './purchase-fixtures.js';

let t: TestInventory;
let c: PurchaseCast;
useTestApp(purchaseCast, (built) => ({ t, w: c } = built));

let resistor: MaterialJson;
let capacitor: MaterialJson;
let betaMaterial: MaterialJson;

beforeAll(async () => {
  resistor = await createMaterial(t, c.mgr.token, { name: '采购电阻', spec_model: '10K 0603', unit: '个' });
  capacitor = await createMaterial(t, c.mgr.token, { name: '采购电容', spec_model: '100nF', unit: '个' });
  betaMaterial = await createMaterial(t, c.betaMgr.token, { name: '采购电阻', spec_model: '10K 0603', category: 'BETA/电子' });
});

const todayDigits = () => new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10).replaceAll('-', '');

describe('POST /purchase', () => {
  it('turns one submission into one request per item sharing a batch key, numbered in Beijing time', async () => {
    const before = Date.now();
    const batch = await submitOk(t, c.sales.token, [
      { base_id: resistor.id, quantity: 100 },
      { name: ' 采购电容 ', spec_model: '100nF', quantity: 2.5, expected_date: '2030-01-31' },
    ]);
    expect(batch.requests).toHaveLength(2);
    const [first, second] = batch.requests as [PurchaseJson, PurchaseJson];
    expect(first.request_no).toMatch(/^PUR-\d{8}-\d{4}-\d{4}-0001$/);
    expect(second.request_no).toBe(first.request_no.replace(/-0001$/, '-0002'));
    expect(batch.batch_key).toBe(first.request_no.slice(0, -5));
    expect(first.batch_key).toBe(batch.batch_key);
    expect(second.batch_key).toBe(batch.batch_key);
    // Beijing date and time of the submission
    const beijing = new Date(before + 8 * 3600_000).toISOString();
    expect(first.request_no.slice(4, 12)).toBe(beijing.slice(0, 10).replaceAll('-', ''));
    expect(first.request_no.slice(13, 17)).toMatch(/^\d{2}[0-5]\d$/);
    expect(first).toMatchObject({ base_id: resistor.id, material_name: '采购电阻', spec_model: '10K 0603', quantity: 100, status: 0, status_label: '待审批', requester_id: c.sales.id, company_name: 'ALPHA' });
    expect(second).toMatchObject({ base_id: capacitor.id, quantity: 2.5, expected_date: '2030-01-31', purchase_date: beijing.slice(0, 10) });
  });

  it('gives the next submission of the day the next batch_seq, announced by next-batch-seq', async () => {
    const next = await t.request('GET', `${PURCHASE}/next-batch-seq`, { token: c.sales.token });
    expect(next.statusCode).toBe(200);
    const { next_batch_seq: expected, date } = next.json() as { next_batch_seq: number; date: string };
    expect(date.replaceAll('-', '')).toBe(todayDigits());
    const batch = await submitOk(t, c.sales2.token, [{ base_id: resistor.id, quantity: 1 }]);
    expect(Number(batch.batch_key.split('-')[3])).toBe(expected);
    const after = await t.request('GET', `${PURCHASE}/next-batch-seq`, { token: c.sales.token });
    expect(after.json().next_batch_seq).toBe(expected + 1);
  });

  it('matches name + spec_model exactly; no match or several are 400 listing what was found, and nothing is written', async () => {
    await createMaterial(t, c.mgr.token, { name: '重名物料', spec_model: 'A', category: 'ALPHA/一' });
    await createMaterial(t, c.mgr.token, { name: '重名物料', spec_model: 'A', category: 'ALPHA/二' });
    const before = await countPurchases(t);

    const none = await submitPurchase(t, c.sales.token, [
      { base_id: resistor.id, quantity: 1 },
      { name: '采购电容', spec_model: '100NF', quantity: 1 },
    ]);
    expect(none.statusCode).toBe(400);
    expect(none.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'items[1].name', reason: 'no_match' });
    expect(none.json().msg).toContain('第 2 项');
    expect(none.json().candidates).toEqual([expect.objectContaining({ base_id: capacitor.id, spec_model: '100nF' })]);

    const several = await submitPurchase(t, c.sales.token, [{ name: '重名物料', spec_model: 'A', quantity: 1 }]);
    expect(several.statusCode).toBe(400);
    expect(several.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'items[0].name', reason: 'ambiguous' });
    expect(several.json().matches).toHaveLength(2);

    // another company's material of the same name is not a match for ALPHA
    const beta = await submitPurchase(t, c.betaMgr.token, [{ name: '采购电阻', spec_model: '10K 0603', quantity: 3 }]);
    expect(beta.statusCode).toBe(201);
    expect(beta.json().requests[0]).toMatchObject({ base_id: betaMaterial.id, company_name: 'BETA' });
    expect(await countPurchases(t)).toBe(before + 1);
  });

  it('refuses bad input with 400 (or 404 for an unknown material) and writes nothing', async () => {
    const before = await countPurchases(t);
    const cases: Array<[unknown, number, string, string?]> = [
      [{ items: [{ base_id: resistor.id, quantity: 0 }] }, 400, 'VALIDATION_FAILED'],
      [{ items: [{ base_id: resistor.id, quantity: -1 }] }, 400, 'VALIDATION_FAILED'],
      [{ items: [{ base_id: resistor.id, quantity: '5' }] }, 400, 'VALIDATION_FAILED'],
      [{ items: [] }, 400, 'VALIDATION_FAILED'],
      [{}, 400, 'VALIDATION_FAILED'],
      [{ items: [{ quantity: 1 }] }, 400, 'VALIDATION_FAILED', 'items[0].name'],
      [{ items: [{ base_id: resistor.id, quantity: 1 }, { base_id: 99999999, quantity: 1 }] }, 404, 'NOT_FOUND', 'items[1].base_id'],
      [{ items: [{ base_id: betaMaterial.id, quantity: 1 }] }, 404, 'NOT_FOUND', 'items[0].base_id'],
      [{ items: [{ base_id: resistor.id, quantity: 1, purchase_date: '2025-02-30' }] }, 400, 'VALIDATION_FAILED', 'items.0.purchase_date'],
      [{ items: [{ base_id: resistor.id, quantity: 1, expected_date: '31/01/2030' }] }, 400, 'VALIDATION_FAILED'],
      [{ items: [{ base_id: resistor.id, quantity: 1, tax_rate: 101 }] }, 400, 'VALIDATION_FAILED'],
      [{ items: [{ base_id: resistor.id, quantity: 1, supplier_id: 99999999 }] }, 404, 'NOT_FOUND', 'items[0].supplier_id'],
    ];
    for (const [body, status, code, field] of cases) {
      const response = await t.request('POST', PURCHASE, { token: c.mgr.token, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.json().code).toBe(code);
      expect(typeof response.json().msg).toBe('string');
      if (field) expect(response.json().field).toBe(field);
    }
    // contract §3: a cross-domain caller names the company, and every material must be of it
    const unnamed = await t.request('POST', PURCHASE, { token: t.adminToken, body: { items: [{ base_id: resistor.id, quantity: 1 }] } });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.json()).toMatchObject({ code: 'COMPANY_REQUIRED', field: 'company_name' });
    const foreign = await t.request('POST', PURCHASE, {
      token: t.adminToken,
      body: { company_name: 'ALPHA', items: [{ base_id: resistor.id, quantity: 1 }, { base_id: betaMaterial.id, quantity: 1 }] },
    });
    expect(foreign.statusCode).toBe(404);
    expect(await countPurchases(t)).toBe(before);
  });

  it('refuses a cross-domain caller naming a company nobody belongs to with 400 UNKNOWN_COMPANY, writing nothing', async () => {
    const before = await countPurchases(t);
    const response = await t.request('POST', PURCHASE, {
      token: t.adminToken,
      body: { company_name: 'NOPE_CO', items: [{ base_id: resistor.id, quantity: 1 }] },
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'UNKNOWN_COMPANY', field: 'company_name', company: 'NOPE_CO' });
    expect(typeof response.json().msg).toBe('string');
    expect(await countPurchases(t)).toBe(before);
    // the same call naming a real company goes through
    const named = await t.request('POST', PURCHASE, { token: t.adminToken, body: { company_name: 'ALPHA', items: [{ base_id: resistor.id, quantity: 1, remark: '管理员代提' }] } });
    expect(named.statusCode, named.body).toBe(201);
  });

  it('refuses dates the database cannot store (year 0000) with 400 naming the field, in submissions and list filters', async () => {
    const before = await countPurchases(t);
    for (const [item, field] of [
      [{ purchase_date: '0000-01-01' }, 'items.0.purchase_date'],
      [{ expected_date: '0000-12-31' }, 'items.0.expected_date'],
    ] as const) {
      const response = await submitPurchase(t, c.mgr.token, [{ base_id: resistor.id, quantity: 1, ...item }]);
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field });
    }
    expect(await countPurchases(t)).toBe(before);
    for (const query of ['start_date=0000-01-01', 'end_date=0000-02-29']) {
      const response = await t.request('GET', `${PURCHASE}?${query}`, { token: c.inbound.token });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: query.split('=')[0] });
    }
    // the earliest real year still passes
    expect((await submitPurchase(t, c.mgr.token, [{ base_id: resistor.id, quantity: 1, purchase_date: '0001-01-01', remark: '公元元年' }])).statusCode).toBe(201);
  });

  it('holds the idempotency lock: while the same submission runs, a repeat is 409 LOCK_HELD and writes nothing', async () => {
    const body = { items: [{ base_id: resistor.id, quantity: 7, remark: '重复提交' }] };
    const key = idempotencyKeyFor(c.sales.id, 'POST', PURCHASE, body);
    const held = await t.service.deps.locks.acquire(key, IDEMPOTENCY_TTL_MS);
    const before = await countPurchases(t);
    const repeat = await t.request('POST', PURCHASE, { token: c.sales.token, body });
    expect(repeat.statusCode).toBe(409);
    expect(repeat.json().code).toBe('LOCK_HELD');
    expect(await countPurchases(t)).toBe(before);
    await t.service.deps.locks.release(key, (held as { token: string }).token);
    expect((await t.request('POST', PURCHASE, { token: c.sales.token, body })).statusCode).toBe(201);
  });

  it('writes prices only for holders of their codes and shows them only to them (fields absent otherwise)', async () => {
    const bySales = await submitOk(t, c.sales.token, [{ base_id: resistor.id, quantity: 3, unit_price: 1.5, tax_rate: 13 }]);
    const salesView = bySales.requests[0]!;
    expect(salesView).not.toHaveProperty('unit_price');
    expect(salesView).not.toHaveProperty('total_price');
    expect(salesView).not.toHaveProperty('tax_rate');
    const mgrSees = await t.request('GET', `${PURCHASE}/${salesView.id}`, { token: c.mgr.token });
    expect(mgrSees.json()).toMatchObject({ unit_price: null, total_price: null, tax_rate: null });

    const byMgr = await submitOk(t, c.mgr.token, [{ base_id: resistor.id, quantity: 3, unit_price: 1.255, tax_rate: 13 }]);
    expect(byMgr.requests[0]).toMatchObject({ unit_price: 1.26, total_price: 3.78, tax_rate: 13 });
    const id = byMgr.requests[0]!.id;
    const list = await t.request('GET', `${PURCHASE}?keyword=${byMgr.requests[0]!.request_no}&search_type=no`, { token: c.inbound.token });
    expect(list.statusCode).toBe(200);
    expect(list.json().items).toHaveLength(1);
    for (const field of ['unit_price', 'total_price', 'tax_rate']) expect(list.json().items[0]).not.toHaveProperty(field);

    // one field code at a time
    const unitOnly = await t.user('INBOUND', 'ALPHA');
    await t.request('PUT', '/api/v1/permissions/role/INBOUND', {
      token: t.adminToken,
      body: { permissions: ['inbound_buy', 'inbound_stock:operation', 'inbound_purchase:unit_price'] },
    });
    const partial = await t.request('GET', `${PURCHASE}?keyword=${byMgr.requests[0]!.request_no}`, { token: unitOnly.token });
    expect(partial.json().items[0]).toMatchObject({ id, unit_price: 1.26 });
    expect(partial.json().items[0]).not.toHaveProperty('total_price');
    expect(partial.json().items[0]).not.toHaveProperty('tax_rate');
    await t.request('PUT', '/api/v1/permissions/role/INBOUND', {
      token: t.adminToken,
      body: { permissions: ['material_list:operation', 'inbound_buy', 'inbound_stock:operation', 'inventory_stocktake:operation', 'op_borrow_apply', 'op_return:operation', 'scrap_apply'] },
    });
  });
});

describe('GET /purchase and the detail', () => {
  let own: PurchaseJson;
  let others: PurchaseJson;
  let dated: PurchaseJson[];

  beforeAll(async () => {
    const material = await createMaterial(t, c.mgr.token, { name: '列表专用螺丝', spec_model: 'M3x8' });
    own = (await submitOk(t, c.sales.token, [{ base_id: material.id, quantity: 1, remark: '急用 列表专用' }])).requests[0]!;
    others = (await submitOk(t, c.sales2.token, [{ base_id: material.id, quantity: 2 }])).requests[0]!;
    dated = (
      await submitOk(t, c.sales.token, [
        { base_id: material.id, quantity: 1, purchase_date: '2024-03-01' },
        { base_id: material.id, quantity: 1, purchase_date: '2024-03-02' },
        { base_id: material.id, quantity: 1, purchase_date: '2024-03-03' },
      ])
    ).requests;
    await decideOk(t, c.mgr.token, others.id, 'approve');
  });

  const list = async (query: string, token = c.inbound.token) => {
    const response = await t.request('GET', `${PURCHASE}?${query}`, { token });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { items: PurchaseJson[]; total: number; page: number; limit: number };
  };

  it('needs inbound_buy and shows the company, newest first', async () => {
    expect((await t.request('GET', PURCHASE, { token: c.sales.token })).statusCode).toBe(403);
    const page = await list('keyword=列表专用螺丝&search_type=name&limit=2');
    expect(page.total).toBe(5);
    expect(page.items.map((item) => item.id)).toEqual([dated[2]!.id, dated[1]!.id]);
    const beta = await list('keyword=列表专用螺丝', c.betaMgr.token);
    expect(beta.total).toBe(0);
  });

  it('filters by status, by the five search types and by the closed purchase_date interval', async () => {
    expect((await list('keyword=列表专用螺丝&status=1')).items.map((item) => item.id)).toEqual([others.id]);
    expect((await list(`keyword=${own.request_no}&search_type=no`)).items.map((item) => item.id)).toEqual([own.id]);
    expect((await list('keyword=m3X8&search_type=spec_model')).total).toBe(5);
    expect((await list('keyword=申请人乙&search_type=requester')).items.map((item) => item.id)).toContain(others.id);
    expect((await list('keyword=申请人乙&search_type=requester')).items.map((item) => item.id)).not.toContain(own.id);
    expect((await list('keyword=急用')).items.map((item) => item.id)).toEqual([own.id]);
    expect((await list('keyword=急用&search_type=name')).total).toBe(0);
    const interval = await list('keyword=列表专用螺丝&start_date=2024-03-01&end_date=2024-03-02');
    expect(interval.items.map((item) => item.purchase_date).sort()).toEqual(['2024-03-01', '2024-03-02']);
    expect((await list('keyword=列表专用螺丝&start_date=2024-03-03&end_date=2024-03-03')).items.map((item) => item.id)).toEqual([dated[2]!.id]);
    for (const bad of ['search_type=sku', 'status=9', 'start_date=2024-13-01', 'end_date=2024-02-30']) {
      const response = await t.request('GET', `${PURCHASE}?${bad}`, { token: c.inbound.token });
      expect(response.statusCode, bad).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
  });

  it('takes datetime bounds like every list (contract §8), counting each by its Beijing date', async () => {
    const days = async (query: string) => (await list(`keyword=列表专用螺丝&${query}`)).items.map((item) => item.purchase_date).sort();
    // 2024-03-01T20:00Z is 2024-03-02 04:00 in Beijing
    expect(await days(`start_date=2024-03-01T20:00:00Z&end_date=${encodeURIComponent('2024-03-02 23:59:59')}`)).toEqual(['2024-03-02']);
    expect(await days(`start_date=${encodeURIComponent('2024-03-02T00:00:00+08:00')}&end_date=${encodeURIComponent('2024-03-03T10:00:00+08:00')}`)).toEqual(['2024-03-02', '2024-03-03']);
    for (const [bad, field] of [['start_date=2024-03-01Tnoon', 'start_date'], [`end_date=${encodeURIComponent('0000-01-01 10:00')}`, 'end_date']] as const) {
      const response = await t.request('GET', `${PURCHASE}?${bad}`, { token: c.inbound.token });
      expect(response.statusCode, bad).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field });
    }
  });

  it('detail: the requester, or a holder of inbound_purchase; another company’s is 404', async () => {
    expect((await t.request('GET', `${PURCHASE}/${own.id}`, { token: c.sales.token })).json()).toMatchObject({ id: own.id });
    const forbidden = await t.request('GET', `${PURCHASE}/${own.id}`, { token: c.sales2.token });
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('FORBIDDEN');
    expect((await t.request('GET', `${PURCHASE}/${own.id}`, { token: c.inbound.token })).statusCode).toBe(403);
    expect((await t.request('GET', `${PURCHASE}/${own.id}`, { token: c.mgr.token })).statusCode).toBe(200);
    expect((await t.request('GET', `${PURCHASE}/${own.id}`, { token: c.betaMgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', `${PURCHASE}/99999999`, { token: c.mgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', `${PURCHASE}/abc`, { token: c.mgr.token })).statusCode).toBe(400);
  });

  it('batch: the requests of one submission for its requester or inbound_purchase, both number shapes', async () => {
    const batchKey = dated[0]!.batch_key;
    const mine = await t.request('GET', `${PURCHASE}/batch?batch_key=${batchKey}`, { token: c.sales.token });
    expect(mine.statusCode).toBe(200);
    expect(mine.json().requests.map((request: PurchaseJson) => request.id)).toEqual(dated.map((request) => request.id));
    expect((await t.request('GET', `${PURCHASE}/batch?batch_key=${batchKey}`, { token: c.sales2.token })).statusCode).toBe(403);
    expect((await t.request('GET', `${PURCHASE}/batch?batch_key=${batchKey}`, { token: c.betaMgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', `${PURCHASE}/batch?batch_key=nonsense`, { token: c.mgr.token })).statusCode).toBe(400);

    // historic numbers without batch_seq: PUR-<yyyymmdd>-<hhmm>-<serial>
    await t.service.deps.database.transaction({ actor: 'legacy-import' }, (tx) =>
      tx.execute(sql`insert into purchase_requests (request_no, base_id, company_name, quantity, purchase_date, requester_id, status)
        values ('PUR-20230105-0930-0001', ${resistor.id}, 'ALPHA', 5, '2023-01-05', ${c.sales.id}, 0),
               ('PUR-20230105-0930-0002', ${resistor.id}, 'ALPHA', 6, '2023-01-05', ${c.sales.id}, 0),
               ('PUR-20230105-0930-0001-0001', ${resistor.id}, 'ALPHA', 7, '2023-01-05', ${c.sales.id}, 0)`),
    );
    const legacy = await t.request('GET', `${PURCHASE}/batch?batch_key=PUR-20230105-0930`, { token: c.mgr.token });
    expect(legacy.statusCode).toBe(200);
    expect(legacy.json().requests.map((request: PurchaseJson) => request.request_no)).toEqual(['PUR-20230105-0930-0001', 'PUR-20230105-0930-0002']);
    expect(legacy.json().requests[0].batch_key).toBe('PUR-20230105-0930');
    const current = await t.request('GET', `${PURCHASE}/batch?batch_key=PUR-20230105-0930-0001`, { token: c.mgr.token });
    expect(current.json().requests.map((request: PurchaseJson) => request.request_no)).toEqual(['PUR-20230105-0930-0001-0001']);
  });
});

describe('submission helpers', () => {
  it('approvers: the company’s holders of inbound_purchase:operation', async () => {
    const response = await t.request('GET', `${PURCHASE}/approvers`, { token: c.sales.token });
    expect(response.statusCode).toBe(200);
    const ids = (response.json() as Array<{ id: number }>).map((user) => user.id);
    expect(ids).toContain(c.mgr.id);
    expect(ids).not.toContain(c.sales.id);
    expect(ids).not.toContain(c.inbound.id);
    expect(ids).not.toContain(c.betaMgr.id);
    expect(response.json()[0]).not.toHaveProperty('email');
  });

  it('search-material: name or spec of the caller’s company, at most limit', async () => {
    const response = await t.request('GET', `${PURCHASE}/search-material?keyword=采购电阻`, { token: c.sales.token });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual([{ base_id: resistor.id, name: '采购电阻', spec_model: '10K 0603', unit: '个', category: 'ALPHA/电子/电阻', company_name: 'ALPHA' }]);
    expect((await t.request('GET', `${PURCHASE}/search-material?keyword=0603&limit=1`, { token: c.sales.token })).json()).toHaveLength(1);
    expect((await t.request('GET', `${PURCHASE}/search-material`, { token: c.sales.token })).statusCode).toBe(400);
  });

  it('auto-fill: material, supply, suggestion and the last purchase, by id or by name + spec', async () => {
    const material = await createMaterial(t, c.mgr.token, { name: '自动填充件', spec_model: 'AF-1', yellow_threshold: 10, target_threshold: 30 });
    const first = await t.request('GET', `${PURCHASE}/auto-fill?name=自动填充件&spec_model=AF-1`, { token: c.sales.token });
    expect(first.statusCode, first.body).toBe(200);
    expect(first.json()).toMatchObject({ base_id: material.id, effective_supply: 0, alert_level: 'yellow', in_pool: true, suggested_qty: 30, last_purchase: null, supplier: null });
    expect(first.json()).not.toHaveProperty('referencePrice');
    const submitted = await submitOk(t, c.mgr.token, [{ base_id: material.id, quantity: 12, unit_price: 2 }]);
    await decideOk(t, c.mgr.token, submitted.requests[0]!.id, 'approve');
    const second = await t.request('GET', `${PURCHASE}/auto-fill?base_id=${material.id}`, { token: c.mgr.token });
    expect(second.json()).toMatchObject({ in_transit_quantity: 12, effective_supply: 12, alert_level: 'none', in_pool: false, suggested_qty: 18 });
    expect(second.json().last_purchase).toMatchObject({ request_no: submitted.requests[0]!.request_no, quantity: 12, unit_price: 2, status: 1 });
    const salesView = await t.request('GET', `${PURCHASE}/auto-fill?base_id=${material.id}`, { token: c.sales.token });
    expect(salesView.json().last_purchase).not.toHaveProperty('unit_price');
    expect((await t.request('GET', `${PURCHASE}/auto-fill?name=自动填充件&spec_model=AF-2`, { token: c.sales.token })).json()).toMatchObject({
      code: 'VALIDATION_FAILED',
      field: 'name',
      reason: 'no_match',
    });
    expect((await t.request('GET', `${PURCHASE}/auto-fill?base_id=${betaMaterial.id}`, { token: c.sales.token })).statusCode).toBe(404);
  });

  it('records every request in the audit trail under 采购入库, named by its number', async () => {
    const batch = await submitOk(t, c.sales.token, [{ base_id: resistor.id, quantity: 4 }]);
    const rows = await queryRows<{ module: string; action: string; target_name: string; username: string }>(
      t,
      sql`select module, action, target_name, username from audit_logs where table_name = 'purchase_requests' and target_id = ${String(batch.requests[0]!.id)}`,
    );
    expect(rows).toEqual([expect.objectContaining({ module: '采购入库', target_name: batch.requests[0]!.request_no, username: c.sales.username })]);
  });
});
