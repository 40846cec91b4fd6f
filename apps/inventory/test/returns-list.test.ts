import { beforeAll, describe, expect, it } from 'vitest';
import type { TestInventory, TestUser } from './helpers.js';
import { materialWithStock, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';
import { returnOk, shipFromRow, type ReturnJson } from './returns-fixtures.js';

const LIST = '/api/v1/outbound/returns';

let t: TestInventory;
let w: OutboundWorld;
let listOnly: TestUser;
let alphaGood: ReturnJson;
let alphaDefective: ReturnJson;
let betaReturn: ReturnJson;
let alphaMaterialName: string;

useOutboundWorld((built) => ({ t, w } = built));

/** ALPHA: one good and one defective return of one line; BETA: one return. */
beforeAll(async () => {
  // SALES gets outbound_return_list (and keeps its defaults): it may read the returns, not make them
  const grant = await t.request('PUT', '/api/v1/permissions/role/SALES', {
    token: t.adminToken,
    body: { permissions: ['outbound_selection', 'op_borrow_apply', 'op_return:operation', 'outbound_return_list'] },
  });
  expect(grant.statusCode).toBe(200);
  listOnly = w.sales;

  const alpha = await materialWithStock(t, 'ALPHA', [20], { sku: 'RET-LIST-A1' });
  alphaMaterialName = alpha.material.name;
  const line = await shipFromRow(w, alpha.rows[0]!, 6);
  alphaGood = (await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'good', quantity: 2, reason: '包装破损-可用' })).return;
  alphaDefective = (await returnOk(t, w.op.token, { outbound_id: line.id, return_type: 'defective', quantity: 1, reason: '无法开机' })).return;

  const beta = await materialWithStock(t, 'BETA', [5]);
  const betaOp = await t.user('OUTBOUND', 'BETA');
  const betaSubmitted = await t.request('POST', '/api/v1/outbound/request', {
    token: w.betaSales.token,
    body: { outbound_type: 'USE', items: [{ base_id: beta.material.id, quantity: 2 }] },
  });
  await t.request('POST', `/api/v1/outbound/request/${betaSubmitted.json().id}/approve`, { token: w.betaMgr.token });
  const executed = await t.request('POST', '/api/v1/outbound', {
    token: betaOp.token,
    body: { request_id: betaSubmitted.json().id, lines: [{ barcode: beta.rows[0]!.sku, quantity: 2 }] },
  });
  betaReturn = (await returnOk(t, w.betaMgr.token, { outbound_id: executed.json().lines[0].id, return_type: 'good', quantity: 1 })).return;
});

const list = (token: string, query = '') => t.request('GET', `${LIST}${query}`, { token });
const ids = (body: { items: Array<{ id: number }> }) => body.items.map((item) => item.id);

function beijingDay(offsetDays: number): string {
  return new Date(Date.now() + 8 * 3600e3 + offsetDays * 86400e3).toISOString().slice(0, 10);
}

describe('GET /outbound/returns', () => {
  it('lists the company’s returns newest first with the named fields', async () => {
    const response = await list(w.mgr.token);
    expect(response.statusCode).toBe(200);
    const body = response.json();
    expect(body).toMatchObject({ total: 2, page: 1, limit: 20 });
    expect(ids(body)).toEqual([alphaDefective.id, alphaGood.id]);
    expect(body.items[1]).toEqual(alphaGood);
    expect(body.items[1]).toMatchObject({
      outbound_no: expect.stringMatching(/^CK/),
      material_name: alphaMaterialName,
      spec_model: expect.any(String),
      sku: 'RET-LIST-A1',
      return_type: 'good',
      quantity: 2,
      reason: '包装破损-可用',
      operator: w.mgr.username,
      created_at: expect.any(String),
      company_name: 'ALPHA',
    });
  });

  it('filters by keyword over outbound_no, material, spec, sku, reason and operator', async () => {
    const cases: Array<[string, number[]]> = [
      [alphaGood.outbound_no, [alphaDefective.id, alphaGood.id]],
      [alphaMaterialName, [alphaDefective.id, alphaGood.id]],
      [alphaGood.spec_model, [alphaDefective.id, alphaGood.id]],
      ['ret-list', [alphaDefective.id, alphaGood.id]],
      ['无法开机', [alphaDefective.id]],
      [w.op.username, [alphaDefective.id]],
      ['没有这个', []],
      ['%', []],
    ];
    for (const [keyword, expected] of cases) {
      const response = await list(w.mgr.token, `?keyword=${encodeURIComponent(keyword)}`);
      expect(ids(response.json()), keyword).toEqual(expected);
    }
  });

  it('filters by return_type and pages', async () => {
    expect(ids((await list(w.mgr.token, '?return_type=defective')).json())).toEqual([alphaDefective.id]);
    expect(ids((await list(w.mgr.token, '?return_type=good')).json())).toEqual([alphaGood.id]);
    const second = (await list(w.mgr.token, '?page=2&limit=1')).json();
    expect(second).toMatchObject({ total: 2, page: 2, limit: 1 });
    expect(ids(second)).toEqual([alphaGood.id]);
  });

  it('takes start_date and end_date as Beijing days (end includes its whole day), each alone', async () => {
    const today = beijingDay(0);
    const all = [alphaDefective.id, alphaGood.id];
    expect(ids((await list(w.mgr.token, `?start_date=${today}&end_date=${today}`)).json())).toEqual(all);
    expect(ids((await list(w.mgr.token, `?end_date=${today}`)).json())).toEqual(all);
    expect(ids((await list(w.mgr.token, `?start_date=${today}`)).json())).toEqual(all);
    expect(ids((await list(w.mgr.token, `?start_date=${beijingDay(1)}`)).json())).toEqual([]);
    expect(ids((await list(w.mgr.token, `?end_date=${beijingDay(-1)}`)).json())).toEqual([]);
    const before = encodeURIComponent(new Date(Date.parse(alphaGood.created_at) - 1000).toISOString());
    const between = encodeURIComponent(alphaGood.created_at);
    expect(ids((await list(w.mgr.token, `?start_date=${before}&end_date=${between}`)).json())).toEqual([alphaGood.id]);
  });

  it('isolates by the company snapshot: own company only; cross-domain sees all or names one', async () => {
    expect(ids((await list(w.betaMgr.token)).json())).toEqual([betaReturn.id]);
    expect(ids((await list(w.mgr.token, '?company=BETA')).json())).toEqual([alphaDefective.id, alphaGood.id]);
    expect(ids((await list(t.adminToken)).json())).toEqual([betaReturn.id, alphaDefective.id, alphaGood.id]);
    expect(ids((await list(t.adminToken, '?company=BETA')).json())).toEqual([betaReturn.id]);
  });

  it('keeps showing a return with its snapshots after the stock row is deleted and the material renamed', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [3]);
    const line = await shipFromRow(w, rows[0]!, 3);
    const made = (await returnOk(t, w.mgr.token, { outbound_id: line.id, return_type: 'defective', quantity: 3 })).return;
    expect((await t.request('DELETE', `/api/v1/inbound/stock/${rows[0]!.id}`, { token: w.mgr.token })).statusCode).toBe(200);
    const renamed = await t.request('PUT', `/api/v1/inbound/base/${material.id}`, {
      token: w.mgr.token,
      body: { name: '改名后的物料', category: material.category },
    });
    expect(renamed.statusCode).toBe(200);

    const found = (await list(w.mgr.token, `?keyword=${encodeURIComponent(material.name)}`)).json();
    expect(found.items).toEqual([made]);
    expect(found.items[0]).toMatchObject({ company_name: 'ALPHA', company: 'ALPHA', material_name: material.name, sku: rows[0]!.sku });
    expect((await list(w.betaMgr.token, `?keyword=${encodeURIComponent(material.name)}`)).json().total).toBe(0);
  });

  it('accepts outbound_return_list as well as outbound_return; others get 403', async () => {
    expect((await list(listOnly.token)).statusCode).toBe(200);
    expect((await list(w.op.token)).statusCode).toBe(200);
    const refused = await list(w.inbound.token);
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('FORBIDDEN');
    // reading is not making: outbound_return_list alone does not allow a return
    const post = await t.request('POST', '/api/v1/inbound/stock/return-from-outbound', {
      token: listOnly.token,
      body: { outbound_id: alphaGood.outbound_id, return_type: 'good', quantity: 1 },
    });
    expect(post.statusCode).toBe(403);
  });

  it('refuses bad query parameters with 400', async () => {
    for (const query of ['?return_type=broken', '?start_date=2024-02-30', '?end_date=yesterday', '?page=0', '?limit=0', '?limit=abc']) {
      const response = await list(w.mgr.token, query);
      expect(response.statusCode, query).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
  });
});
