import { beforeAll, describe, expect, it } from 'vitest';
import type { TestInventory } from './helpers.js';
import {
  approveOk,
  approvedRequest,
  countRows,
  materialWithStock,
  rowState,
  storedRequest,
  submit,
  submitOk,
  useOutboundWorld,
  type OutboundWorld,
  type RequestJson,
} from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

const post = (path: string, token: string, body?: unknown) => t.request('POST', `/api/v1/outbound/request${path}`, { token, body });

describe('submitting a request: allocation and strict reservation', () => {
  it('allocates largest available first and reserves what it allocated', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [3, 8, 5]);
    const [small, large, middle] = rows.map((row) => row.id) as [number, number, number];

    const request = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 10 }]);

    expect(request).toMatchObject({
      biz_type: 'outbound',
      status: 0,
      status_label: '待审批',
      applicant_id: w.sales.id,
      applicant_name: '销售甲',
      company_name: 'ALPHA',
      outbound_type: 'USE',
      source_return_id: null,
      close_reason: null,
    });
    expect(request.items.map((line) => [line.stock_id, line.quantity, line.reserved])).toEqual([
      [large, 8, true],
      [middle, 2, true],
    ]);
    expect(request.items[0]).toMatchObject({ base_id: material.id, source_table: 'stock_buy', material_name: material.name, sku: rows[1]!.sku });
    expect(request.items_json).toEqual([
      { base_id: material.id, quantity: 8, stock_id: large, source_table: 'stock_buy', reserved: true },
      { base_id: material.id, quantity: 2, stock_id: middle, source_table: 'stock_buy', reserved: true },
    ]);
    expect(await rowState(t, large)).toMatchObject({ stock: 8, available: 0 });
    expect(await rowState(t, middle)).toMatchObject({ stock: 5, available: 3 });
    expect(await rowState(t, small)).toMatchObject({ stock: 3, available: 3 });
  });

  it('breaks a tie of available quantity by the lower row id', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5, 5]);
    const request = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 3 }]);
    expect(request.items.map((line) => line.stock_id)).toEqual([rows[0]!.id]);
  });

  it('merges lines of the same material before allocating', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [4, 6]);
    const request = await submitOk(t, w.sales.token, [
      { base_id: material.id, quantity: 2 },
      { base_id: material.id, quantity: 3 },
    ]);
    // Unmerged, the second line would be allocated after the first had shrunk the larger row.
    expect(request.items.map((line) => [line.stock_id, line.quantity])).toEqual([[rows[1]!.id, 5]]);
  });

  it('allocates several materials and keeps decimal quantities exact', async () => {
    const first = await materialWithStock(t, 'ALPHA', [10]);
    const second = await materialWithStock(t, 'ALPHA', [1.5, 1]);
    const request = await submitOk(t, w.sales.token, [
      { base_id: first.material.id, quantity: 2.5 },
      { base_id: second.material.id, quantity: 2.2 },
      { base_id: first.material.id, quantity: 0.1 },
    ]);
    expect(request.items.map((line) => [line.base_id, line.quantity])).toEqual([
      [first.material.id, 2.6],
      [second.material.id, 1.5],
      [second.material.id, 0.7],
    ]);
    expect(await rowState(t, first.rows[0]!.id)).toMatchObject({ available: 7.4 });
    expect(await rowState(t, second.rows[1]!.id)).toMatchObject({ available: 0.3 });
  });

  it('lets several requests reserve one row while their sum stays within it', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5]);
    await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 2 }]);
    await submitOk(t, w.sales2.token, [{ base_id: material.id, quantity: 3 }]);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 5, available: 0 });
    const third = await submit(t, w.sales.token, { outbound_type: 'SALES', items: [{ base_id: material.id, quantity: 1 }] });
    expect(third.statusCode).toBe(400);
    expect(third.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 1, remaining: 0 });
  });

  it('refuses a shortage with needed and remaining, naming the material, and writes nothing', async () => {
    const plenty = await materialWithStock(t, 'ALPHA', [20]);
    const { material, rows } = await materialWithStock(t, 'ALPHA', [4, 3]);
    const before = await countRows(t, 'outbound_requests');

    const response = await submit(t, w.sales.token, {
      outbound_type: 'SALES',
      items: [
        { base_id: plenty.material.id, quantity: 5 },
        { base_id: material.id, quantity: 6 },
        { base_id: material.id, quantity: 2 },
      ],
    });

    expect(response.statusCode).toBe(400);
    const body = response.json();
    expect(body).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 8, remaining: 7, base_id: material.id });
    expect(body.msg).toContain(material.name);
    expect(await countRows(t, 'outbound_requests')).toBe(before);
    expect(await rowState(t, plenty.rows[0]!.id)).toMatchObject({ available: 20 });
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 4 });
  });

  it('only allocates 在库 rows', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [9, 2]);
    const frozen = await t.request('POST', `/api/v1/inbound/stock/${rows[0]!.id}/change-status`, {
      token: t.adminToken,
      body: { status: '冻结' },
    });
    expect(frozen.statusCode).toBe(200);
    const response = await submit(t, w.sales.token, { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 3 }] });
    expect(response.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 3, remaining: 2 });
    const fits = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 2 }]);
    expect(fits.items.map((line) => line.stock_id)).toEqual([rows[1]!.id]);
  });

  it("answers 404 for an unknown material or another company's, and writes nothing", async () => {
    const beta = await materialWithStock(t, 'BETA', [10]);
    const before = await countRows(t, 'outbound_requests');
    for (const baseId of [beta.material.id, 999999]) {
      const response = await submit(t, w.sales.token, { outbound_type: 'USE', items: [{ base_id: baseId, quantity: 1 }] });
      expect(response.statusCode).toBe(404);
      expect(response.json()).toMatchObject({ code: 'NOT_FOUND', base_id: baseId });
    }
    expect(await countRows(t, 'outbound_requests')).toBe(before);
    expect(await rowState(t, beta.rows[0]!.id)).toMatchObject({ available: 10 });
  });

  it('refuses bad input with 400 VALIDATION_FAILED and writes nothing', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [10]);
    const before = await countRows(t, 'outbound_requests');
    const item = { base_id: material.id, quantity: 1 };
    const bodies: unknown[] = [
      {},
      { outbound_type: 'USE' },
      { outbound_type: 'USE', items: [] },
      { outbound_type: 'GIFT', items: [item] },
      { outbound_type: 'USE', items: [{ base_id: material.id, quantity: '1' }] },
      { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 0 }] },
      { outbound_type: 'USE', items: [{ base_id: material.id, quantity: -2 }] },
      { outbound_type: 'USE', items: [{ base_id: 'x', quantity: 1 }] },
      { outbound_type: 'USE', items: [{ quantity: 1 }] },
      { outbound_type: 'USE', items: item },
    ];
    for (const body of bodies) {
      const response = await submit(t, w.sales.token, body as Record<string, unknown>);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(response.json().msg).toEqual(expect.any(String));
    }
    const malformed = await t.request('POST', '/api/v1/outbound/request', {
      token: w.sales.token,
      body: '{"outbound_type": "USE", "items": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    expect(await countRows(t, 'outbound_requests')).toBe(before);
  });

  it('needs outbound_selection and a token', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [10]);
    const body = { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 1 }] };
    const forbidden = await submit(t, w.inbound.token, body);
    expect(forbidden.statusCode).toBe(403);
    expect(forbidden.json().code).toBe('FORBIDDEN');
    expect((await t.request('POST', '/api/v1/outbound/request', { body })).statusCode).toBe(401);
  });

  it('makes a cross-domain caller name the company', async () => {
    const { material } = await materialWithStock(t, 'BETA', [10]);
    const items = [{ base_id: material.id, quantity: 1 }];
    const unnamed = await submit(t, w.admin, { outbound_type: 'USE', items });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.json().code).toBe('COMPANY_REQUIRED');
    const wrongCompany = await submit(t, w.admin, { outbound_type: 'USE', items, company_name: 'ALPHA' });
    expect(wrongCompany.statusCode).toBe(404);
    const named = await submitOk(t, w.admin, items, { company_name: 'BETA' });
    expect(named.company_name).toBe('BETA');
  });

  it('ignores a company_name sent by a caller bound to one company', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }], { company_name: 'BETA' });
    expect(request.company_name).toBe('ALPHA');
  });
});

describe('approving and rejecting', () => {
  let material: number;
  let rowId: number;
  beforeAll(async () => {
    const made = await materialWithStock(t, 'ALPHA', [50]);
    material = made.material.id;
    rowId = made.rows[0]!.id;
  });

  it('approves 0 → 1 once; a second approval is 400 STATUS_NOT_ALLOWED', async () => {
    const request = await submitOk(t, w.sales.token, [{ base_id: material, quantity: 2 }]);
    const approved = await approveOk(t, w.mgr.token, request.id);
    expect(approved).toMatchObject({ status: 1, status_label: '已审批', approver_id: w.mgr.id });
    expect(approved.approved_at).toEqual(expect.any(String));
    const again = await post(`/${request.id}/approve`, w.mgr.token);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('STATUS_NOT_ALLOWED');
  });

  it('needs outbound_approval; another company answers 404; an unknown id 404; a bad id 400', async () => {
    const request = await submitOk(t, w.sales.token, [{ base_id: material, quantity: 1 }]);
    for (const token of [w.sales.token, w.op.token]) {
      const response = await post(`/${request.id}/approve`, token);
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('FORBIDDEN');
    }
    expect((await post(`/${request.id}/approve`, w.betaMgr.token)).statusCode).toBe(404);
    expect((await post(`/${request.id}/reject`, w.betaMgr.token, { reason: 'x' })).statusCode).toBe(404);
    expect((await post('/999999/approve', w.mgr.token)).json().code).toBe('NOT_FOUND');
    expect((await post('/abc/approve', w.mgr.token)).statusCode).toBe(400);
    expect((await storedRequest(t, request.id)).status).toBe(0);
  });

  it('rejects 0 → 2 with the reason and releases the reservation', async () => {
    const before = await rowState(t, rowId);
    const request = await submitOk(t, w.sales.token, [{ base_id: material, quantity: 4 }]);
    expect((await rowState(t, rowId)).available).toBe(before.available - 4);
    const response = await post(`/${request.id}/reject`, w.mgr.token, { reason: '用途不明' });
    expect(response.statusCode).toBe(200);
    expect(response.json()).toMatchObject({ status: 2, status_label: '已驳回', reject_reason: '用途不明', close_reason: null });
    expect(response.json().items.every((line: { reserved: boolean }) => !line.reserved)).toBe(true);
    expect(await rowState(t, rowId)).toEqual(before);
  });

  it('accepts a rejection without a reason, refuses a malformed one, and rejects only pending requests', async () => {
    const request = await submitOk(t, w.sales.token, [{ base_id: material, quantity: 1 }]);
    expect((await post(`/${request.id}/reject`, w.mgr.token, { reason: 42 })).statusCode).toBe(400);
    expect((await storedRequest(t, request.id)).status).toBe(0);
    expect((await post(`/${request.id}/reject`, w.mgr.token)).json()).toMatchObject({ status: 2, reject_reason: null });

    const approved = await approvedRequest(w, [{ base_id: material, quantity: 1 }]);
    const late = await post(`/${approved.id}/reject`, w.mgr.token, { reason: 'late' });
    expect(late.statusCode).toBe(400);
    expect(late.json().code).toBe('STATUS_NOT_ALLOWED');
  });
});

describe('withdrawing and closing', () => {
  let material: number;
  let rowId: number;
  beforeAll(async () => {
    const made = await materialWithStock(t, 'ALPHA', [100]);
    material = made.material.id;
    rowId = made.rows[0]!.id;
  });
  const reserveTwo = () => submitOk(t, w.sales.token, [{ base_id: material, quantity: 2 }]);

  it('lets the applicant withdraw a pending or an approved request (→ 4 withdrawn, released)', async () => {
    const before = await rowState(t, rowId);
    const pending = await reserveTwo();
    const approved = await approveOk(t, w.mgr.token, (await reserveTwo()).id);
    expect((await rowState(t, rowId)).available).toBe(before.available - 4);
    for (const request of [pending, approved]) {
      const response = await post(`/${request.id}/withdraw`, w.sales.token);
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: 4, status_label: '已完结', close_reason: 'withdrawn', closer_id: w.sales.id });
    }
    expect(await rowState(t, rowId)).toEqual(before);
  });

  it("answers 403 NOT_OWNER to somebody else's withdrawal, 404 across companies, and changes nothing", async () => {
    const request = await reserveTwo();
    for (const token of [w.sales2.token, w.op.token]) {
      const response = await post(`/${request.id}/withdraw`, token);
      expect(response.statusCode).toBe(403);
      expect(response.json().code).toBe('NOT_OWNER');
    }
    expect((await post(`/${request.id}/withdraw`, w.betaSales.token)).statusCode).toBe(404);
    expect((await storedRequest(t, request.id)).status).toBe(0);
  });

  it('lets a privileged caller (approver or SUPER_ADMIN) withdraw for the applicant', async () => {
    const byApprover = await post(`/${(await reserveTwo()).id}/withdraw`, w.mgr.token);
    expect(byApprover.json()).toMatchObject({ status: 4, close_reason: 'withdrawn', closer_id: w.mgr.id });
    const byAdmin = await post(`/${(await reserveTwo()).id}/withdraw`, w.admin);
    expect(byAdmin.json()).toMatchObject({ status: 4, close_reason: 'withdrawn' });
  });

  it('refuses to withdraw a rejected, executed or finished request, and never releases twice', async () => {
    const rejected = await reserveTwo();
    await post(`/${rejected.id}/reject`, w.mgr.token, { reason: 'no' });
    const withdrawn = await reserveTwo();
    await post(`/${withdrawn.id}/withdraw`, w.sales.token);
    const before = await rowState(t, rowId);
    for (const request of [rejected, withdrawn]) {
      const response = await post(`/${request.id}/withdraw`, w.sales.token);
      expect(response.statusCode).toBe(400);
      expect(response.json().code).toBe('STATUS_NOT_ALLOWED');
    }
    expect(await rowState(t, rowId)).toEqual(before);
  });

  it('closes only an approved request (→ 4 closed, released), for outbound_create:operation or approvers', async () => {
    const before = await rowState(t, rowId);
    const pending = await reserveTwo();
    const refused = await post(`/${pending.id}/close`, w.mgr.token);
    expect(refused.statusCode).toBe(400);
    expect(refused.json().code).toBe('STATUS_NOT_ALLOWED');

    await approveOk(t, w.mgr.token, pending.id);
    const bySales = await post(`/${pending.id}/close`, w.sales.token);
    expect(bySales.statusCode).toBe(403);
    expect(bySales.json().code).toBe('FORBIDDEN');
    expect((await post(`/${pending.id}/close`, w.betaMgr.token)).statusCode).toBe(404);

    const closed = await post(`/${pending.id}/close`, w.op.token);
    expect(closed.statusCode).toBe(200);
    expect(closed.json()).toMatchObject({ status: 4, close_reason: 'closed', closer_id: w.op.id });
    expect(await rowState(t, rowId)).toEqual(before);

    const second = await approvedRequest(w, [{ base_id: material, quantity: 1 }]);
    expect((await post(`/${second.id}/close`, w.mgr.token)).json()).toMatchObject({ status: 4, close_reason: 'closed' });

    const again = await post(`/${pending.id}/close`, w.op.token);
    expect(again.json().code).toBe('STATUS_NOT_ALLOWED');
    expect((await post(`/${pending.id}/withdraw`, w.sales.token)).json().code).toBe('STATUS_NOT_ALLOWED');
  });
});

/** The Asia/Shanghai calendar day of an instant. */
const beijingDay = (iso: string) => new Date(Date.parse(iso) + 8 * 3_600_000).toISOString().slice(0, 10);

describe('reading requests', () => {
  let own: RequestJson;
  let other: RequestJson;
  let beta: RequestJson;
  beforeAll(async () => {
    const alpha = await materialWithStock(t, 'ALPHA', [30]);
    const betaStock = await materialWithStock(t, 'BETA', [30]);
    own = await submitOk(t, w.sales.token, [{ base_id: alpha.material.id, quantity: 1 }]);
    other = await submitOk(t, w.sales2.token, [{ base_id: alpha.material.id, quantity: 1 }]);
    beta = await submitOk(t, w.betaSales.token, [{ base_id: betaStock.material.id, quantity: 1 }]);
  });
  const ids = (body: { items: Array<{ id: number }> }) => body.items.map((item) => item.id);
  const list = (token: string, query = '') => t.request('GET', `/api/v1/outbound/request${query}`, { token });

  it('shows approvers their company, everybody else their own', async () => {
    const sales = (await list(w.sales.token, '?limit=200')).json();
    expect(ids(sales)).toContain(own.id);
    expect(ids(sales)).not.toContain(other.id);
    expect(sales.items.every((item: RequestJson) => item.applicant_id === w.sales.id)).toBe(true);

    const mgr = (await list(w.mgr.token, '?limit=200')).json();
    expect(ids(mgr)).toEqual(expect.arrayContaining([own.id, other.id]));
    expect(ids(mgr)).not.toContain(beta.id);
    expect(mgr).toMatchObject({ page: 1, limit: 200, total: expect.any(Number) });

    const admin = (await list(w.admin, '?limit=200')).json();
    expect(ids(admin)).toEqual(expect.arrayContaining([own.id, beta.id]));
    const adminBeta = (await list(w.admin, '?limit=200&company=BETA')).json();
    expect(ids(adminBeta)).toContain(beta.id);
    expect(ids(adminBeta)).not.toContain(own.id);
  });

  it('filters by status and pages', async () => {
    const pending = (await list(w.mgr.token, '?status=0&limit=200')).json();
    expect(pending.items.every((item: RequestJson) => item.status === 0)).toBe(true);
    const firstPage = (await list(w.mgr.token, '?limit=1&page=1')).json();
    expect(firstPage.items).toHaveLength(1);
    expect(firstPage.total).toBeGreaterThan(1);
    expect((await list(w.mgr.token, '?status=9')).statusCode).toBe(400);
    expect((await list(w.mgr.token, '?limit=500')).json().limit).toBe(200); // capped, not refused (contract §2)
  });

  it('finds requests by keyword: number, remark, applicant, material name or spec, literally (contract §8)', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [10], {});
    const marked = await submitOk(t, w.sales2.token, [{ base_id: material.id, quantity: 1 }], { remark: '展台_100%样品' });
    const found = async (keyword: string, token = w.mgr.token) => {
      const response = await list(token, `?limit=200&keyword=${encodeURIComponent(keyword)}`);
      expect(response.statusCode, response.body).toBe(200);
      return ids(response.json());
    };
    expect(await found('_100%样')).toEqual([marked.id]); // wildcards are literal
    expect(await found('_1%')).toEqual([]);
    expect(await found(material.spec_model.toUpperCase())).toEqual([marked.id]);
    expect(await found(material.name)).toEqual([marked.id]);
    expect(await found(String(marked.id))).toContain(marked.id);
    const bySales2 = await found('销售乙');
    expect(bySales2).toEqual(expect.arrayContaining([marked.id, other.id]));
    expect(bySales2).not.toContain(own.id);
    // the keyword narrows what the caller may see, never widens it
    expect(await found('展台', w.sales.token)).toEqual([]);
    expect((await list(w.mgr.token, '?keyword=%20%20')).json().total).toBe((await list(w.mgr.token)).json().total);
  });

  it('filters by the submission time: a bare date is a Beijing day and the end date includes its whole day', async () => {
    const day = beijingDay(String(own.created_at));
    const shifted = (days: number) => beijingDay(new Date(Date.parse(`${day}T12:00:00+08:00`) + days * 86_400_000).toISOString());
    expect(ids((await list(w.mgr.token, `?limit=200&start_date=${day}&end_date=${day}`)).json())).toContain(own.id);
    expect(ids((await list(w.mgr.token, `?limit=200&end_date=${shifted(-1)}`)).json())).not.toContain(own.id);
    expect(ids((await list(w.mgr.token, `?limit=200&start_date=${shifted(1)}`)).json())).not.toContain(own.id);
    const after = new Date(Date.parse(String(own.created_at)) + 1000).toISOString();
    expect(ids((await list(w.mgr.token, `?limit=200&start_date=${encodeURIComponent(after)}`)).json())).not.toContain(own.id);
    expect(ids((await t.request('GET', `/api/v1/outbound/my-requests?start_date=${day}`, { token: w.sales.token })).json())).toContain(own.id);
    const bad = await list(w.mgr.token, '?start_date=2024-02-30');
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'start_date' });
  });

  it('answers a detail to the applicant and approvers, 404 to others', async () => {
    const detail = (token: string, id: number) => t.request('GET', `/api/v1/outbound/request/${id}`, { token });
    const mine = await detail(w.sales.token, own.id);
    expect(mine.statusCode).toBe(200);
    expect(mine.json()).toMatchObject({ id: own.id, applicant_name: '销售甲', items: [{ reserved: true }] });
    expect((await detail(w.mgr.token, own.id)).statusCode).toBe(200);
    expect((await detail(w.sales2.token, own.id)).statusCode).toBe(404);
    expect((await detail(w.betaMgr.token, own.id)).statusCode).toBe(404);
    expect((await detail(w.mgr.token, 999999)).json().code).toBe('NOT_FOUND');
  });

  it('lists my-requests as the caller only, even for an approver', async () => {
    const mine = await submitOk(t, w.mgr.token, [{ base_id: own.items[0]!.base_id, quantity: 1 }]);
    const response = await t.request('GET', '/api/v1/outbound/my-requests?limit=200', { token: w.mgr.token });
    expect(response.statusCode).toBe(200);
    expect(ids(response.json())).toEqual([mine.id]);
    const sales = (await t.request('GET', '/api/v1/outbound/my-requests', { token: w.sales.token })).json();
    expect(sales.items.every((item: RequestJson) => item.applicant_id === w.sales.id)).toBe(true);
    expect((await t.request('GET', '/api/v1/outbound/my-requests')).statusCode).toBe(401);
  });

  it('shows executors (outbound_create:operation without outbound_approval) their own requests only, approved ones of others included', async () => {
    const approved = await submitOk(t, w.sales.token, [{ base_id: own.items[0]!.base_id, quantity: 1 }]);
    const approve = await t.request('POST', `/api/v1/outbound/request/${approved.id}/approve`, { token: w.mgr.token });
    expect(approve.statusCode, approve.body).toBe(200);
    const executorList = (await list(w.op.token, '?limit=200')).json();
    expect(ids(executorList)).not.toContain(approved.id);
    expect(ids(executorList)).not.toContain(own.id);
    expect((await t.request('GET', `/api/v1/outbound/request/${approved.id}`, { token: w.op.token })).statusCode).toBe(404);
    expect(ids((await list(w.mgr.token, '?limit=200')).json())).toContain(approved.id);
  });

  it("keeps a user's own requests inside the company: moved to another company, they are no longer listed or shown", async () => {
    const mover = await t.user('SALES', 'ALPHA');
    const request = await submitOk(t, mover.token, [{ base_id: own.items[0]!.base_id, quantity: 1 }]);
    const moved = await t.request('PATCH', `/api/v1/users/${mover.id}`, { token: w.admin, body: { company_name: 'BETA' } });
    expect(moved.statusCode).toBe(200);
    const token = (await t.login(mover.username, 'password-1')).json().token as string;
    expect((await t.request('GET', `/api/v1/outbound/request/${request.id}`, { token })).statusCode).toBe(404);
    expect(ids((await list(token, '?limit=200')).json())).not.toContain(request.id);
    expect(ids((await t.request('GET', '/api/v1/outbound/my-requests?limit=200', { token })).json())).not.toContain(request.id);
    // the approvers of its company still see it
    expect((await t.request('GET', `/api/v1/outbound/request/${request.id}`, { token: w.mgr.token })).statusCode).toBe(200);
  });

  it('writes an audit record under 出库管理', async () => {
    const { queryRows } = await import('./fixtures.js');
    const { sql } = await import('drizzle-orm');
    const audit = await queryRows<{ module: string; action: string; username: string; company_name: string }>(
      t,
      sql`select module, action, username, company_name from audit_logs where table_name = 'outbound_requests' and target_id = ${String(own.id)}`,
    );
    expect(audit).toEqual([{ module: '出库管理', action: 'CREATE', username: w.sales.username, company_name: 'ALPHA' }]);
  });
});
