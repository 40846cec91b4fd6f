import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { TestInventory } from './helpers.js';
import {
  api,
  approveBorrowOk,
  approvedBorrow,
  borrowCounts,
  groupApi,
  materialWithStock,
  post,
  rowState,
  storedBorrowRequest,
  submitBorrowOk,
  useBorrowWorld,
  type BorrowRequestJson,
  type BorrowWorld,
} from './borrow-fixtures.js';

let t: TestInventory;
let w: BorrowWorld;

useBorrowWorld((built) => ({ t, w } = built), { checkLedger: true });

const submit = (token: string, body: unknown) => t.request('POST', api('/request'), { token, body });

describe('submitting a borrow request: allocation and strict reservation', () => {
  it('allocates largest available first, reserves it, and answers a borrow request in status 0', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [3, 8, 5]);
    const [small, large, middle] = rows.map((row) => row.id) as [number, number, number];

    const request = await submitBorrowOk(t, w.sales.token, [{ base_id: material.id, quantity: 10 }], {
      expected_return_date: '2030-01-31',
    });

    expect(request).toMatchObject({
      biz_type: 'borrow',
      status: 0,
      status_label: '待审批',
      applicant_id: w.sales.id,
      applicant_name: '销售甲',
      company_name: 'ALPHA',
      expected_return_date: '2030-01-31',
      close_reason: null,
    });
    expect(request.items.map((line) => [line.stock_id, line.quantity, line.reserved])).toEqual([
      [large, 8, true],
      [middle, 2, true],
    ]);
    expect(await rowState(t, large)).toMatchObject({ stock: 8, available: 0 });
    expect(await rowState(t, middle)).toMatchObject({ stock: 5, available: 3 });
    expect(await rowState(t, small)).toMatchObject({ stock: 3, available: 3 });
  });

  it('merges lines of the same material before allocating and keeps decimals exact', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [4, 6.5]);
    const request = await submitBorrowOk(t, w.sales.token, [
      { base_id: material.id, quantity: 2.25 },
      { base_id: material.id, quantity: 3 },
    ]);
    expect(request.items.map((line) => [line.stock_id, line.quantity])).toEqual([[rows[1]!.id, 5.25]]);
    expect(await rowState(t, rows[1]!.id)).toMatchObject({ stock: 6.5, available: 1.25 });
  });

  it('refuses a shortage with 400 STOCK_SHORTAGE naming needed and remaining, and reserves nothing', async () => {
    const first = await materialWithStock(t, 'ALPHA', [5]);
    const second = await materialWithStock(t, 'ALPHA', [2, 1]);
    const before = await borrowCounts(t);
    const response = await submit(w.sales.token, {
      items: [
        { base_id: first.material.id, quantity: 5 },
        { base_id: second.material.id, quantity: 4 },
      ],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 4, remaining: 3, base_id: second.material.id });
    expect(response.json().msg).toContain('库存不足');
    expect(await borrowCounts(t)).toEqual(before);
    expect(await rowState(t, first.rows[0]!.id)).toMatchObject({ available: 5 });
  });

  it('only allocates 在库 rows of the caller\'s company', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [9, 2]);
    await t.request('POST', `/api/v1/inbound/stock/${rows[0]!.id}/change-status`, { token: w.admin, body: { status: '冻结' } });
    const response = await submit(w.sales.token, { items: [{ base_id: material.id, quantity: 3 }] });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 3, remaining: 2 });

    const beta = await materialWithStock(t, 'BETA', [10]);
    const other = await submit(w.sales.token, { items: [{ base_id: beta.material.id, quantity: 1 }] });
    expect(other.statusCode).toBe(404);
    expect(other.json().code).toBe('NOT_FOUND');
  });

  it('needs company_name from a cross-domain caller, and uses it', async () => {
    const { material } = await materialWithStock(t, 'BETA', [5]);
    const missing = await submit(w.admin, { items: [{ base_id: material.id, quantity: 1 }] });
    expect(missing.statusCode).toBe(400);
    expect(missing.json().code).toBe('COMPANY_REQUIRED');
    const named = await submit(w.admin, { items: [{ base_id: material.id, quantity: 1 }], company_name: 'BETA' });
    expect(named.statusCode).toBe(201);
    expect(named.json()).toMatchObject({ company_name: 'BETA', status: 0 });
    await post(t, `/request/${named.json().id}/withdraw`, w.admin);
  });

  it('refuses bad input with a clear 400 and writes nothing', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [5]);
    const before = await borrowCounts(t);
    const bodies: unknown[] = [
      {},
      { items: [] },
      { items: [{ base_id: material.id, quantity: 0 }] },
      { items: [{ base_id: material.id, quantity: -1 }] },
      { items: [{ base_id: material.id, quantity: '2' }] },
      { items: [{ base_id: 'x', quantity: 2 }] },
      { items: [{ base_id: material.id }] },
      { items: [{ base_id: material.id, quantity: 1 }], expected_return_date: '2024-02-30' },
      { items: [{ base_id: material.id, quantity: 1 }], expected_return_date: 'tomorrow' },
      { items: 'all' },
    ];
    for (const body of bodies) {
      const response = await submit(w.sales.token, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(response.json().msg).toBeTruthy();
    }
    const malformed = await t.request('POST', api('/request'), {
      token: w.sales.token,
      body: '{"items": [',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    const unknown = await submit(w.sales.token, { items: [{ base_id: 999999, quantity: 1 }] });
    expect(unknown.statusCode).toBe(404);
    expect(await borrowCounts(t)).toEqual(before);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 5, available: 5 });
  });

  it('is served under /transactions/borrow too, and keeps its own id space apart from outbound requests', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [5]);
    const response = await t.request('POST', groupApi('/request'), {
      token: w.sales.token,
      body: { items: [{ base_id: material.id, quantity: 1 }], remark: '分组路径' },
    });
    expect(response.statusCode).toBe(201);
    const id = response.json().id as number;
    const outbound = await t.request('GET', `/api/v1/outbound/request/${id}`, { token: w.mgr.token });
    expect(outbound.statusCode).toBe(404);
    const read = await t.request('GET', groupApi(`/request/${id}`), { token: w.sales.token });
    expect(read.json()).toMatchObject({ id, biz_type: 'borrow' });
    await post(t, `/request/${id}/withdraw`, w.sales.token);
  });
});

describe('who sees which requests', () => {
  let own: BorrowRequestJson;
  let others: BorrowRequestJson;

  beforeAll(async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [20]);
    own = await submitBorrowOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }]);
    others = await submitBorrowOk(t, w.inbound.token, [{ base_id: material.id, quantity: 1 }]);
  });

  it('an ordinary user sees only their own requests; approvers and dispatchers the company\'s', async () => {
    const mine = await t.request('GET', api('/request?limit=200'), { token: w.sales.token });
    const ids = (mine.json().items as BorrowRequestJson[]).map((request) => request.id);
    expect(ids).toContain(own.id);
    expect(ids).not.toContain(others.id);
    expect((mine.json().items as BorrowRequestJson[]).every((request) => request.applicant_id === w.sales.id)).toBe(true);

    for (const token of [w.mgr.token, w.op.token]) {
      const all = await t.request('GET', api('/request?limit=200'), { token });
      const seen = (all.json().items as BorrowRequestJson[]).map((request) => request.id);
      expect(seen).toEqual(expect.arrayContaining([own.id, others.id]));
    }
    const beta = await t.request('GET', api('/request?limit=200'), { token: w.betaMgr.token });
    expect((beta.json().items as BorrowRequestJson[]).map((request) => request.id)).not.toContain(own.id);
  });

  it('filters by status and pages', async () => {
    const pending = await t.request('GET', api('/request?status=0&limit=1&page=1'), { token: w.mgr.token });
    expect(pending.json()).toMatchObject({ page: 1, limit: 1 });
    expect(pending.json().items).toHaveLength(1);
    expect(pending.json().total).toBeGreaterThanOrEqual(2);
    expect((pending.json().items as BorrowRequestJson[])[0]!.status).toBe(0);
    const bad = await t.request('GET', api('/request?status=9'), { token: w.mgr.token });
    expect(bad.statusCode).toBe(400);
  });

  it('finds requests by keyword: number, remark, applicant username, material name or spec (contract §8)', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [5]);
    const fair = await submitBorrowOk(t, w.inbound.token, [{ base_id: material.id, quantity: 1 }], { remark: '展会样机' });
    const found = async (keyword: string, token = w.mgr.token) => {
      const response = await t.request('GET', api(`/request?limit=200&keyword=${encodeURIComponent(keyword)}`), { token });
      expect(response.statusCode, response.body).toBe(200);
      return (response.json().items as BorrowRequestJson[]).map((request) => request.id);
    };
    expect(await found('展会')).toEqual([fair.id]);
    expect(await found(material.spec_model.toLowerCase())).toEqual([fair.id]);
    expect(await found(String(fair.id))).toContain(fair.id);
    expect(await found(w.inbound.username)).toEqual(expect.arrayContaining([fair.id, others.id]));
    expect(await found('展会', w.sales.token)).toEqual([]); // not the caller's, so not found either
  });

  it('details: another\'s request is 404 for an ordinary user and for another company', async () => {
    expect((await t.request('GET', api(`/request/${own.id}`), { token: w.sales.token })).statusCode).toBe(200);
    expect((await t.request('GET', api(`/request/${others.id}`), { token: w.sales.token })).statusCode).toBe(404);
    expect((await t.request('GET', api(`/request/${own.id}`), { token: w.betaMgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', api('/request/999999'), { token: w.mgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', api('/request/abc'), { token: w.mgr.token })).statusCode).toBe(400);
  });

  afterAll(async () => {
    await post(t, `/request/${own.id}/withdraw`, w.sales.token);
    await post(t, `/request/${others.id}/withdraw`, w.inbound.token);
  });
});

describe('approve, reject, close and withdraw', () => {
  async function freshRequest(quantity = 3, applicant = w.sales) {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await submitBorrowOk(t, applicant.token, [{ base_id: material.id, quantity }]);
    return { request, row: rows[0]! };
  }

  it('approve moves 0 → 1 and keeps the reservation; only op_borrow_approval may approve', async () => {
    const { request, row } = await freshRequest();
    for (const token of [w.sales.token, w.op.token]) {
      const refused = await post(t, `/request/${request.id}/approve`, token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('FORBIDDEN');
    }
    expect((await storedBorrowRequest(t, request.id)).status).toBe(0);
    const approved = await approveBorrowOk(t, w.mgr.token, request.id);
    expect(approved).toMatchObject({ status: 1, status_label: '已审批', approver_id: w.mgr.id });
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 7 });
    const again = await post(t, `/request/${request.id}/approve`, w.mgr.token);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('STATUS_NOT_ALLOWED');
    expect((await post(t, `/request/${request.id}/approve`, w.betaMgr.token)).statusCode).toBe(404);
    await post(t, `/request/${request.id}/close`, w.mgr.token);
  });

  it('reject moves 0 → 2 with its reason and releases; not from 1; without a body too', async () => {
    const { request, row } = await freshRequest();
    const refused = await post(t, `/request/${request.id}/reject`, w.sales.token, { reason: 'x' });
    expect(refused.statusCode).toBe(403);
    const rejected = await post(t, `/request/${request.id}/reject`, w.mgr.token, { reason: ' 不需要 ' });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json()).toMatchObject({ status: 2, status_label: '已驳回', reject_reason: '不需要' });
    expect(rejected.json().items.every((line: { reserved: boolean }) => !line.reserved)).toBe(true);
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 10 });

    const second = await freshRequest();
    const noBody = await post(t, `/request/${second.request.id}/reject`, w.mgr.token);
    expect(noBody.statusCode).toBe(200);
    expect(noBody.json().reject_reason).toBeNull();

    const third = await freshRequest();
    await approveBorrowOk(t, w.mgr.token, third.request.id);
    const fromApproved = await post(t, `/request/${third.request.id}/reject`, w.mgr.token, {});
    expect(fromApproved.statusCode).toBe(400);
    expect(fromApproved.json().code).toBe('STATUS_NOT_ALLOWED');
    expect(await rowState(t, third.row.id)).toMatchObject({ available: 7 });
    const badReason = await post(t, `/request/${third.request.id}/reject`, w.mgr.token, { reason: 5 });
    expect(badReason.statusCode).toBe(400);
    await post(t, `/request/${third.request.id}/close`, w.mgr.token);
  });

  it('close needs op_borrow_approval and status 1, and releases', async () => {
    const { request, row } = await freshRequest();
    const fromPending = await post(t, `/request/${request.id}/close`, w.mgr.token);
    expect(fromPending.statusCode).toBe(400);
    expect(fromPending.json().code).toBe('STATUS_NOT_ALLOWED');
    await approveBorrowOk(t, w.mgr.token, request.id);
    for (const token of [w.sales.token, w.op.token]) expect((await post(t, `/request/${request.id}/close`, token)).statusCode).toBe(403);
    const closed = await post(t, `/request/${request.id}/close`, w.mgr.token);
    expect(closed.json()).toMatchObject({ status: 4, status_label: '已完结', close_reason: 'closed', closer_id: w.mgr.id });
    expect(await rowState(t, row.id)).toMatchObject({ available: 10 });
    const twice = await post(t, `/request/${request.id}/close`, w.mgr.token);
    expect(twice.statusCode).toBe(400);
  });

  it('the applicant withdraws from 0 or 1; somebody else\'s is 403 unless privileged; other statuses 400', async () => {
    const pending = await freshRequest();
    const foreign = await post(t, `/request/${pending.request.id}/withdraw`, w.sales2.token);
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json().code).toBe('NOT_OWNER');
    expect((await storedBorrowRequest(t, pending.request.id)).status).toBe(0);
    expect((await post(t, `/request/${pending.request.id}/withdraw`, w.betaSales.token)).statusCode).toBe(404);
    const withdrawn = await post(t, `/request/${pending.request.id}/withdraw`, w.sales.token);
    expect(withdrawn.json()).toMatchObject({ status: 4, close_reason: 'withdrawn' });
    expect(await rowState(t, pending.row.id)).toMatchObject({ available: 10 });
    const again = await post(t, `/request/${pending.request.id}/withdraw`, w.sales.token);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('STATUS_NOT_ALLOWED');

    const approved = await freshRequest();
    await approveBorrowOk(t, w.mgr.token, approved.request.id);
    const byApprover = await post(t, `/request/${approved.request.id}/withdraw`, w.mgr.token);
    expect(byApprover.json()).toMatchObject({ status: 4, close_reason: 'withdrawn', closer_id: w.mgr.id });
    expect(await rowState(t, approved.row.id)).toMatchObject({ available: 10 });

    const rejected = await freshRequest();
    await post(t, `/request/${rejected.request.id}/reject`, w.mgr.token, {});
    const fromRejected = await post(t, `/request/${rejected.request.id}/withdraw`, w.sales.token);
    expect(fromRejected.statusCode).toBe(400);
    expect(fromRejected.json().code).toBe('STATUS_NOT_ALLOWED');

    const byAdmin = await freshRequest();
    const adminWithdraw = await post(t, `/request/${byAdmin.request.id}/withdraw`, w.admin);
    expect(adminWithdraw.json()).toMatchObject({ status: 4, close_reason: 'withdrawn' });
  });

  it('every lifecycle path works under /transactions/borrow as well', async () => {
    const { request } = await freshRequest();
    const approved = await t.request('POST', groupApi(`/request/${request.id}/approve`), { token: w.mgr.token });
    expect(approved.json().status).toBe(1);
    const closed = await t.request('POST', groupApi(`/request/${request.id}/close`), { token: w.mgr.token });
    expect(closed.json()).toMatchObject({ status: 4, close_reason: 'closed' });
    const list = await t.request('GET', groupApi('/request'), { token: w.mgr.token });
    expect(list.statusCode).toBe(200);
  });

  it('lists requests by submission time: a bare end date includes its whole Beijing day', async () => {
    const { request } = await freshRequest();
    const ids = async (query: string) =>
      ((await t.request('GET', api(`/request?limit=200${query}`), { token: w.mgr.token })).json().items as Array<{ id: number }>).map((r) => r.id);
    const day = new Date(Date.parse(String(request.created_at)) + 8 * 3_600_000).toISOString().slice(0, 10);
    expect(await ids(`&start_date=${day}&end_date=${day}`)).toContain(request.id);
    expect(await ids(`&start_date=${encodeURIComponent(new Date(Date.parse(String(request.created_at)) + 1000).toISOString())}`)).not.toContain(request.id);
    expect((await t.request('GET', api('/request?end_date=yesterday'), { token: w.mgr.token })).json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'end_date' });
  });

  it('unknown ids are 404 and bad ids 400 on every lifecycle path', async () => {
    for (const action of ['approve', 'reject', 'close', 'withdraw']) {
      expect((await post(t, `/request/999999/${action}`, w.mgr.token, {})).statusCode).toBe(404);
      expect((await post(t, `/request/0/${action}`, w.mgr.token, {})).statusCode).toBe(400);
    }
  });
});

describe('borrow stock list and users', () => {
  it('/borrow/stock-list answers stock rows like the stock list, in the caller\'s company', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [4]);
    const list = await t.request('GET', api(`/stock-list?base_id=${material.id}`), { token: w.sales.token });
    expect(list.statusCode).toBe(200);
    const stock = await t.request('GET', `/api/v1/stock/list?base_id=${material.id}`, { token: w.sales.token });
    expect(list.json()).toEqual(stock.json());
    expect(list.json().items[0]).toMatchObject({ id: rows[0]!.id, available_quantity: 4, material_name: material.name });
    const grouped = await t.request('GET', groupApi(`/stock-list?base_id=${material.id}`), { token: w.sales.token });
    expect(grouped.json()).toEqual(list.json());
    const beta = await t.request('GET', api(`/stock-list?base_id=${material.id}`), { token: w.betaSales.token });
    expect(beta.json().items).toEqual([]);
  });

  it('/borrow/users answers the same as /common/active-users', async () => {
    const borrowUsers = await t.request('GET', api('/users'), { token: w.sales.token });
    const common = await t.request('GET', '/api/v1/common/active-users', { token: w.sales.token });
    expect(borrowUsers.statusCode).toBe(200);
    expect(borrowUsers.json()).toEqual(common.json());
    expect(borrowUsers.json()).toEqual(expect.arrayContaining([{ id: w.sales.id, name: '销售甲' }]));
    expect((borrowUsers.json() as Array<{ id: number }>).map((user) => user.id)).not.toContain(w.betaSales.id);
    const grouped = await t.request('GET', groupApi('/users'), { token: w.sales.token });
    expect(grouped.json()).toEqual(common.json());
    expect((await t.request('GET', api('/users'))).statusCode).toBe(401);
  });
});

describe('permission codes (role grants changed for this block)', () => {
  const salesGrants = ['outbound_selection', 'op_borrow_apply', 'op_return:operation'];

  afterAll(async () => {
    await t.request('PUT', '/api/v1/permissions/role/SALES', { token: w.admin, body: { permissions: salesGrants } });
  });

  it('submitting and the stock list need op_borrow_apply', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [5]);
    const approved = await approvedBorrow(w, [{ base_id: material.id, quantity: 1 }], w.sales2);
    const changed = await t.request('PUT', '/api/v1/permissions/role/SALES', { token: w.admin, body: { permissions: ['outbound_selection'] } });
    expect(changed.statusCode).toBe(200);
    const before = await borrowCounts(t);
    const refused = await submit(w.sales.token, { items: [{ base_id: material.id, quantity: 1 }] });
    expect(refused.statusCode).toBe(403);
    expect(refused.json().code).toBe('FORBIDDEN');
    expect((await t.request('GET', api('/stock-list'), { token: w.sales.token })).statusCode).toBe(403);
    expect(await borrowCounts(t)).toEqual(before);
    // the applicant's own withdrawal needs no code
    expect((await post(t, `/request/${approved.id}/withdraw`, w.sales2.token)).statusCode).toBe(200);
  });
});
