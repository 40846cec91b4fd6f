import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { countStockRows, createMaterial, queryRows, stockIn, useTestApp, type MaterialJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import {
  approvedPurchase,
  decide,
  decideOk,
  mailsMentioning,
  PURCHASE,
  purchaseCast,
  submitOk,
  type PurchaseCast,
  type PurchaseJson,
} from './purchase-fixtures.js';
import { eventually, setEmail } from './returns-fixtures.js';

let t: TestInventory;
let c: PurchaseCast;
useTestApp(purchaseCast, (built) => ({ t, w: c } = built));

let material: MaterialJson;

beforeAll(async () => {
  material = await createMaterial(t, c.mgr.token, { name: '审批用轴承', spec_model: '6204' });
});

const storedStatus = async (id: number) =>
  (await queryRows<{ status: number }>(t, sql`select status from purchase_requests where id = ${id}`))[0]!.status;

const pending = async (quantity = 1, token = c.sales.token) => (await submitOk(t, token, [{ base_id: material.id, quantity }])).requests[0]!;

describe('PATCH /purchase/{id}/approve', () => {
  it('approves 0 → 1, rejects 0 → 2 with a reason, closes 1 → 4', async () => {
    const a = await pending();
    const approved = await decideOk(t, c.mgr.token, a.id, 'approve');
    expect(approved).toMatchObject({ id: a.id, status: 1, status_label: '已审批', approver_id: c.mgr.id, approver_name: '采购经理' });
    expect(approved.approved_at).toEqual(expect.any(String));

    const b = await pending();
    const rejected = await decide(t, c.mgr.token, b.id, 'reject', '预算不足');
    expect(rejected.json()).toMatchObject({ status: 2, status_label: '已驳回', decision_reason: '预算不足' });

    const closed = await decide(t, c.mgr.token, a.id, 'close', '供应商停产');
    expect(closed.json()).toMatchObject({ status: 4, status_label: '已完结', decision_reason: '供应商停产' });
    expect(closed.json().closed_at).toEqual(expect.any(String));
  });

  it('refuses moves the status does not allow (400 STATUS_NOT_ALLOWED) and unknown actions (400), writing nothing', async () => {
    const request = await pending();
    const closePending = await decide(t, c.mgr.token, request.id, 'close');
    expect(closePending.statusCode).toBe(400);
    expect(closePending.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status: 0 });
    for (const body of [{ action: 'withdraw' }, { action: 'APPROVE' }, {}, { action: 'approve', reason: 5 }]) {
      const response = await t.request('PATCH', `${PURCHASE}/${request.id}/approve`, { token: c.mgr.token, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect(await storedStatus(request.id)).toBe(0);
    await decideOk(t, c.mgr.token, request.id, 'approve');
    const again = await decide(t, c.mgr.token, request.id, 'approve');
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status: 1 });
    expect((await decide(t, c.mgr.token, request.id, 'reject')).json().code).toBe('STATUS_NOT_ALLOWED');
  });

  it('needs inbound_purchase:operation; another company’s request is 404', async () => {
    const request = await pending();
    expect((await decide(t, c.sales.token, request.id, 'approve')).statusCode).toBe(403);
    expect((await decide(t, c.inbound.token, request.id, 'approve')).statusCode).toBe(403);
    expect((await decide(t, c.betaMgr.token, request.id, 'approve')).statusCode).toBe(404);
    expect((await decide(t, c.mgr.token, 99999999, 'approve')).statusCode).toBe(404);
    expect(await storedStatus(request.id)).toBe(0);
  });
});

describe('POST /purchase/batch-approve', () => {
  it('by ids: moves what it may and lists the rest as failures (already decided, unknown, other company)', async () => {
    const [a, b, decided] = [await pending(), await pending(), await pending()];
    await decideOk(t, c.mgr.token, decided.id, 'approve');
    const beta = await createMaterial(t, c.betaMgr.token, { category: 'BETA/x' });
    const betaRequest = (await submitOk(t, c.betaMgr.token, [{ base_id: beta.id, quantity: 1 }])).requests[0]!;

    const response = await t.request('POST', `${PURCHASE}/batch-approve`, {
      token: c.mgr.token,
      body: { ids: [b.id, decided.id, 99999999, a.id, betaRequest.id], action: 'approve' },
    });
    expect(response.statusCode).toBe(200);
    const result = response.json() as { action: string; success: PurchaseJson[]; failed: Array<{ id: number; code: string; status?: number; request_no: string | null }> };
    expect(result.action).toBe('approve');
    expect(result.success.map((request) => [request.id, request.status])).toEqual([[a.id, 1], [b.id, 1]]);
    expect(result.failed).toEqual([
      expect.objectContaining({ id: decided.id, code: 'STATUS_NOT_ALLOWED', status: 1, request_no: decided.request_no }),
      expect.objectContaining({ id: 99999999, code: 'NOT_FOUND', request_no: null }),
      expect.objectContaining({ id: betaRequest.id, code: 'NOT_FOUND' }),
    ]);
    expect(await storedStatus(betaRequest.id)).toBe(0);
  });

  it('by batch_key: the whole submission, close included; an unknown batch is 404', async () => {
    const batch = await submitOk(t, c.sales.token, [
      { base_id: material.id, quantity: 1 },
      { base_id: material.id, quantity: 2 },
    ]);
    const approve = await t.request('POST', `${PURCHASE}/batch-approve`, { token: c.mgr.token, body: { batch_key: batch.batch_key, action: 'approve' } });
    expect(approve.json().success).toHaveLength(2);
    expect(approve.json().failed).toEqual([]);
    const close = await t.request('POST', `${PURCHASE}/batch-approve`, { token: c.mgr.token, body: { batch_key: batch.batch_key, action: 'close', reason: '取消' } });
    expect(close.json().success.map((request: PurchaseJson) => request.status)).toEqual([4, 4]);
    const again = await t.request('POST', `${PURCHASE}/batch-approve`, { token: c.mgr.token, body: { batch_key: batch.batch_key, action: 'close' } });
    expect(again.statusCode).toBe(200);
    expect(again.json().success).toEqual([]);
    expect(again.json().failed.map((failure: { code: string }) => failure.code)).toEqual(['STATUS_NOT_ALLOWED', 'STATUS_NOT_ALLOWED']);
    expect((await t.request('POST', `${PURCHASE}/batch-approve`, { token: c.mgr.token, body: { batch_key: 'PUR-20000101-0000-0001', action: 'approve' } })).statusCode).toBe(404);
    expect((await t.request('POST', `${PURCHASE}/batch-approve`, { token: c.betaMgr.token, body: { batch_key: batch.batch_key, action: 'approve' } })).statusCode).toBe(404);
  });

  it('refuses bad bodies with 400 and needs inbound_purchase:operation', async () => {
    const request = await pending();
    const bodies = [
      { action: 'approve' },
      { ids: [request.id], batch_key: request.batch_key, action: 'approve' },
      { ids: [], action: 'approve' },
      { ids: [request.id], action: 'finish' },
      { batch_key: 'not-a-key', action: 'approve' },
      { ids: ['1'], action: 'approve' },
    ];
    for (const body of bodies) {
      const response = await t.request('POST', `${PURCHASE}/batch-approve`, { token: c.mgr.token, body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await t.request('POST', `${PURCHASE}/batch-approve`, { token: c.sales.token, body: { ids: [request.id], action: 'approve' } })).statusCode).toBe(403);
    expect(await storedStatus(request.id)).toBe(0);
  });
});

describe('stock-in with request_id', () => {
  const stockInFor = (body: Record<string, unknown>) =>
    t.request('POST', '/api/v1/inbound/stock', { token: c.inbound.token, body: { source_table: 'stock_buy', in_quantity: 5, warehouse_location: 'P/01', ...body } });

  const unstocked = async () => {
    const response = await t.request('GET', `${PURCHASE}/approved-unstocked?base_id=${material.id}&limit=200`, { token: c.inbound.token });
    expect(response.statusCode).toBe(200);
    return (response.json().items as PurchaseJson[]).map((request) => request.id);
  };

  it('completes the approved request (已完成) and drops it from approved-unstocked', async () => {
    const request = await approvedPurchase(c, material.id, 5);
    expect(await unstocked()).toContain(request.id);
    const row = await stockIn(t, c.inbound.token, { base_id: material.id, in_quantity: 4, request_id: request.id });
    expect(row.request_id).toBe(request.id);
    const after = await t.request('GET', `${PURCHASE}/${request.id}`, { token: c.mgr.token });
    expect(after.json()).toMatchObject({ status: 3, status_label: '已完成' });
    expect(after.json().completed_at).toEqual(expect.any(String));
    expect(await unstocked()).not.toContain(request.id);
    // a completed request cannot be closed any more
    expect((await decide(t, c.mgr.token, request.id, 'close')).json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status: 3 });
  });

  it('refuses (400) a request that is not approved, of another company, of another material or unknown; nothing is stocked in', async () => {
    const before = await countStockRows(t);
    const waiting = await pending();
    const notApproved = await stockInFor({ base_id: material.id, request_id: waiting.id });
    expect(notApproved.statusCode).toBe(400);
    expect(notApproved.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status: 0, field: 'request_id' });

    const beta = await createMaterial(t, c.betaMgr.token, { category: 'BETA/y' });
    const betaRequest = (await submitOk(t, c.betaMgr.token, [{ base_id: beta.id, quantity: 1 }])).requests[0]!;
    await decideOk(t, c.betaMgr.token, betaRequest.id, 'approve');
    const foreign = await stockInFor({ base_id: material.id, request_id: betaRequest.id });
    expect(foreign.statusCode).toBe(404);
    expect(foreign.json()).toMatchObject({ code: 'NOT_FOUND', field: 'request_id' });

    const other = await createMaterial(t, c.mgr.token, { name: '别的物料' });
    const approved = await approvedPurchase(c, material.id, 1);
    const wrongMaterial = await stockInFor({ base_id: other.id, request_id: approved.id });
    expect(wrongMaterial.statusCode).toBe(400);
    expect(wrongMaterial.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'request_id' });

    expect((await stockInFor({ base_id: material.id, request_id: 99999999 })).statusCode).toBe(404);
    expect(await countStockRows(t)).toBe(before);
    expect(await storedStatus(approved.id)).toBe(1);
    expect(await storedStatus(betaRequest.id)).toBe(1);
  });

  it('approved-unstocked needs inbound_buy and stays in the company', async () => {
    expect((await t.request('GET', `${PURCHASE}/approved-unstocked`, { token: c.sales.token })).statusCode).toBe(403);
    const beta = await t.request('GET', `${PURCHASE}/approved-unstocked?base_id=${material.id}`, { token: c.betaMgr.token });
    expect(beta.json().total).toBe(0);
  });
});

describe('purchase mail', () => {
  it('mails the approvers after a submission and the requester after each decision', async () => {
    await setEmail(t, c.mgr, 'buyer@alpha.example');
    await setEmail(t, c.sales2, 'requester@alpha.example');
    const betaBuyer = await t.user('WAREHOUSE_MGR', 'BETA');
    await setEmail(t, betaBuyer, 'buyer@beta.example');
    const special = await createMaterial(t, c.mgr.token, { name: '邮件专用阀门', spec_model: 'DN50', unit: '只' });
    const batch = await submitOk(t, c.sales2.token, [
      { base_id: special.id, quantity: 3, unit_price: 99 },
      { base_id: special.id, quantity: 4 },
    ]);
    const [submitted] = await eventually(() => mailsMentioning(t, 'purchase_submitted', batch.batch_key), (mails) => mails.length > 0);
    expect(submitted).toMatchObject({ to_addresses: ['buyer@alpha.example'] });
    expect(submitted!.subject).toContain('申请人乙');
    expect(submitted!.subject).toContain('2 项');
    expect(submitted!.body).toContain(`${batch.requests[0]!.request_no}  邮件专用阀门（DN50）  数量 3只`);
    expect(submitted!.body).not.toContain('99');

    await t.request('POST', `${PURCHASE}/batch-approve`, { token: c.mgr.token, body: { batch_key: batch.batch_key, action: 'reject', reason: '重复申请' } });
    const [decided] = await eventually(() => mailsMentioning(t, 'purchase_decided', batch.requests[1]!.request_no), (mails) => mails.length > 0);
    expect(decided).toMatchObject({ to_addresses: ['requester@alpha.example'] });
    expect(decided!.subject).toBe('【采购审批结果】2 项采购申请已驳回');
    expect(decided!.body).toContain('原因：重复申请');
    expect(decided!.body).toContain('处理人：采购经理');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect(await mailsMentioning(t, 'purchase_decided', batch.batch_key)).toHaveLength(1);
  });
});
