import { describe, expect, it } from 'vitest';
import type { TestInventory } from './helpers.js';
import { materialWithStock, submitOk, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built));

async function created(response: { statusCode: number; body: string; json: () => unknown }) {
  if (response.statusCode !== 201 && response.statusCode !== 200) throw new Error(`${response.statusCode}: ${response.body}`);
  return response.json() as Record<string, unknown>;
}

describe('GET /common/my-requests', () => {
  it('lists the caller’s own outbound, borrow, scrap and purchase requests, newest first, paged', async () => {
    const applicant = w.op; // OUTBOUND: outbound_selection, op_borrow_apply, scrap_apply; purchase needs only a login
    const { material, rows } = await materialWithStock(t, 'ALPHA', [20]);
    const outbound = await submitOk(t, applicant.token, [{ base_id: material.id, quantity: 2 }]);
    const borrow = await created(await t.request('POST', '/api/v1/borrow/request', {
      token: applicant.token,
      body: { items: [{ base_id: material.id, quantity: 3 }], remark: '借用' },
    }));
    const scrap = await created(await t.request('POST', '/api/v1/scrap/request', {
      token: applicant.token,
      body: { mode: 'scan', reason: '损坏', reason_category: '库存报废', items: [{ source_table: rows[0]!.source_table, stock_id: rows[0]!.id, scrap_qty: 1.5 }] },
    }));
    const purchase = await created(await t.request('POST', '/api/v1/purchase', {
      token: applicant.token,
      body: { items: [{ base_id: material.id, quantity: 7, purchase_date: '2026-11-20' }] },
    }));
    await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }]); // someone else's

    const page = await t.request('GET', '/api/v1/common/my-requests?limit=10', { token: applicant.token });
    expect(page.statusCode).toBe(200);
    const body = page.json();
    expect(body.total).toBe(4);
    const purchaseRequest = (purchase.requests as Array<{ id: number; request_no: string }>)[0]!;
    expect(body.items.map((item: { biz_type: string; id: number }) => [item.biz_type, item.id])).toEqual([
      ['purchase', purchaseRequest.id],
      ['scrap', scrap.id],
      ['borrow', borrow.id],
      ['outbound', outbound.id],
    ]);
    expect(body.items[0]).toMatchObject({ request_no: purchaseRequest.request_no, status: 0, status_label: '待审批', total_quantity: 7 });
    expect(body.items[1]).toMatchObject({ line_count: 1, total_quantity: 1.5, remark: '损坏' });
    expect(body.items[3]).toMatchObject({ line_count: 1, total_quantity: 2, company_name: 'ALPHA' });

    const secondPage = await t.request('GET', '/api/v1/common/my-requests?limit=3&page=2', { token: applicant.token });
    expect(secondPage.statusCode, secondPage.body).toBe(200);
    const second = secondPage.json();
    expect(second).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(second.items.map((item: { biz_type: string }) => item.biz_type)).toEqual(['outbound']);

    const onlyScrap = (await t.request('GET', '/api/v1/common/my-requests?biz_type=scrap', { token: applicant.token })).json();
    expect(onlyScrap.items.map((item: { id: number }) => item.id)).toEqual([scrap.id]);
    expect((await t.request('GET', '/api/v1/common/my-requests?biz_type=gift', { token: applicant.token })).statusCode).toBe(400);

    // the submission time: the Beijing day of the newest includes all four, a start after it none
    const day = new Date(Date.parse(body.items[0].created_at) + 8 * 3_600_000).toISOString().slice(0, 10);
    const within = (await t.request('GET', `/api/v1/common/my-requests?start_date=${day}&end_date=${day}`, { token: applicant.token })).json();
    expect(within.total).toBe(4);
    const later = new Date(Date.parse(body.items[0].created_at) + 1000).toISOString();
    const after = (await t.request('GET', `/api/v1/common/my-requests?start_date=${encodeURIComponent(later)}`, { token: applicant.token })).json();
    expect(after.total).toBe(0);
    expect((await t.request('GET', '/api/v1/common/my-requests')).statusCode).toBe(401);
  });

  it('filters by keyword on the remark or reason, the purchase number and the materials asked for (contract §8)', async () => {
    const applicant = await t.user('OUTBOUND', 'ALPHA');
    const { material, rows } = await materialWithStock(t, 'ALPHA', [20]);
    const other = await materialWithStock(t, 'ALPHA', [5]);
    const outbound = await submitOk(t, applicant.token, [{ base_id: material.id, quantity: 1 }]);
    const borrow = await created(await t.request('POST', '/api/v1/borrow/request', {
      token: applicant.token,
      body: { items: [{ base_id: other.material.id, quantity: 1 }], remark: '展会样机借用' },
    }));
    const scrap = await created(await t.request('POST', '/api/v1/scrap/request', {
      token: applicant.token,
      body: { mode: 'scan', reason: '跌落损坏', reason_category: '库存报废', items: [{ source_table: rows[0]!.source_table, stock_id: rows[0]!.id, scrap_qty: 1 }] },
    }));
    const purchase = await created(await t.request('POST', '/api/v1/purchase', {
      token: applicant.token,
      body: { items: [{ base_id: other.material.id, quantity: 2, purchase_date: '2026-11-20' }] },
    }));
    const purchaseRequest = (purchase.requests as Array<{ id: number; request_no: string }>)[0]!;
    const found = async (keyword: string) => {
      const res = await t.request('GET', `/api/v1/common/my-requests?keyword=${encodeURIComponent(keyword)}`, { token: applicant.token });
      expect(res.statusCode, res.body).toBe(200);
      return res.json().items.map((item: { biz_type: string; id: number }) => [item.biz_type, item.id]);
    };
    expect(await found('样机')).toEqual([['borrow', borrow.id]]);
    expect(await found('跌落')).toEqual([['scrap', scrap.id]]);
    expect(await found(purchaseRequest.request_no)).toEqual([['purchase', purchaseRequest.id]]);
    // the material's name or spec model, case-insensitively, in every kind of request that names it
    expect(await found(material.spec_model.toLowerCase())).toEqual([['scrap', scrap.id], ['outbound', outbound.id]]);
    expect(await found(other.material.name)).toEqual([['purchase', purchaseRequest.id], ['borrow', borrow.id]]);
    expect(await found('没有这样的东西')).toEqual([]);
    // a request's number (its id; ids of other kinds may be the same number)
    expect(await found(String(borrow.id))).toContainEqual(['borrow', borrow.id]);
  });

  it('lists only requests of the caller’s company: moved to another company, the old ones are gone', async () => {
    const mover = await t.user('SALES', 'ALPHA');
    const { material } = await materialWithStock(t, 'ALPHA', [5]);
    await submitOk(t, mover.token, [{ base_id: material.id, quantity: 1 }]);
    await created(await t.request('POST', '/api/v1/purchase', {
      token: mover.token,
      body: { items: [{ base_id: material.id, quantity: 2, purchase_date: '2026-11-20' }] },
    }));
    const before = (await t.request('GET', '/api/v1/common/my-requests', { token: mover.token })).json();
    expect(before.total).toBe(2);
    const moved = await t.request('PATCH', `/api/v1/users/${mover.id}`, { token: w.admin, body: { company_name: 'BETA' } });
    expect(moved.statusCode).toBe(200);
    const token = (await t.login(mover.username, 'password-1')).json().token as string;
    const after = (await t.request('GET', '/api/v1/common/my-requests', { token })).json();
    expect(after).toMatchObject({ total: 0, items: [] });
  });
});

describe('GET /common/my-requests: company parameter (spec 2.1)', () => {
  it('a cross-domain caller narrows by company; an ordinary caller cannot widen to another company', async () => {
    const alpha = await materialWithStock(t, 'ALPHA', [5]);
    const beta = await materialWithStock(t, 'BETA', [5]);
    for (const [company, material] of [['ALPHA', alpha.material], ['BETA', beta.material]] as const) {
      await created(await t.request('POST', '/api/v1/purchase', {
        token: w.admin,
        body: { company_name: company, items: [{ base_id: material.id, quantity: 2, purchase_date: '2026-11-20' }] },
      }));
    }
    const companiesOf = async (path: string, token: string) =>
      ((await t.request('GET', path, { token })).json().items as Array<{ company_name: string }>).map((item) => item.company_name);
    expect((await companiesOf('/api/v1/common/my-requests?biz_type=purchase', w.admin)).sort()).toEqual(['ALPHA', 'BETA']);
    expect(await companiesOf('/api/v1/common/my-requests?biz_type=purchase&company=BETA', w.admin)).toEqual(['BETA']);

    await submitOk(t, w.sales2.token, [{ base_id: alpha.material.id, quantity: 1 }]);
    const own = await companiesOf('/api/v1/common/my-requests?company=BETA', w.sales2.token);
    expect(own.length).toBeGreaterThan(0);
    expect(new Set(own)).toEqual(new Set(['ALPHA']));
  });
});

describe('GET /common/labels', () => {
  it('answers the dictionary of enumerated values, request statuses per flow', async () => {
    const labels = (await t.request('GET', '/api/v1/common/labels', { token: w.sales.token })).json();
    expect(labels.stock_status.map((option: { value: string }) => option.value)).toEqual(['在库', '冻结', '不良品']);
    const third = (flow: string) => labels.request_status[flow].find((option: { value: number }) => option.value === 3).label;
    expect([third('outbound'), third('scrap'), third('purchase')]).toEqual(['已出库', '已执行', '已完成']);
    expect(labels.scrap_reason_category.map((option: { value: string }) => option.value)).toContain('库存报废');
  });
});
