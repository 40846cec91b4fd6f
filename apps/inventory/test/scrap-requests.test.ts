import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { queryRows, useTestApp } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { ledgerCheck } from './ledger.js';
import { approvedBorrow, dispatchOk } from './borrow-fixtures.js';
import {
  approve,
  approveOk,
  approvedStockScrap,
  execute,
  heldEntry,
  ledgerScrapPath,
  materialWithStock,
  ok,
  post,
  rowState,
  scrapApi,
  scrapCounts,
  scrapWorld,
  stockScrapOk,
  storedScrapRequest,
  submitStockScrap,
  type ScrapRequestJson,
  type ScrapWorld,
} from './scrap-fixtures.js';

let t: TestInventory;
let w: ScrapWorld;

useTestApp(scrapWorld, (built) => ({ t, w } = built), ledgerCheck);

const withdraw = (id: number, token: string) => post(t, scrapApi(`/request/${id}/withdraw`), token);
const reject = (id: number, token: string, body?: unknown) => post(t, scrapApi(`/request/${id}/reject`), token, body);

describe('POST /scrap/request (stock rows)', () => {
  it('reserves each named row at submission, in scan mode, and answers the request with its lines', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 6]);
    const response = await submitStockScrap(t, w.op.token, {
      mode: 'scan',
      reason: '受潮',
      items: [
        { source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 2, location: '报废区' },
        { source_table: 'stock_buy', stock_id: rows[1]!.id, scrap_qty: 1.5 },
        { source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 },
      ],
      approver_ids: [w.mgr.id, w.mgr.id],
    });
    const request = await ok(response, 201);
    expect(request).toMatchObject({
      biz_type: 'scrap',
      applicant_id: w.op.id,
      applicant_name: '发货员',
      company_name: 'ALPHA',
      mode: 'scan',
      reason: '受潮',
      reason_category: '库存报废',
      status: 0,
      status_label: '待审批',
      allowed_approvers: [w.mgr.id],
      track_ref: null,
      executed_at: null,
    });
    expect(request.items).toEqual([
      expect.objectContaining({ source_table: 'stock_buy', stock_id: rows[0]!.id, base_id: material.id, scrap_qty: 3, quantity: 3, location: '报废区', reserved: true, sku: rows[0]!.sku, material_name: material.name }),
      expect.objectContaining({ source_table: 'stock_buy', stock_id: rows[1]!.id, scrap_qty: 1.5, location: '', reserved: true, warehouse_location: 'A/01/01' }),
    ]);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 10, available: 7, status: '在库' });
    expect(await rowState(t, rows[1]!.id)).toEqual({ stock: 6, available: 4.5, status: '在库' });
    const detail = await t.request('GET', scrapApi(`/request/${request.id}`), { token: w.op.token });
    expect(detail.json()).toEqual(request);
  });

  it('fills allowed_approvers with the company’s active scrap_execute holders when approver_ids is absent', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const supervisor = await t.user('SUPERVISOR', 'ALPHA');
    const leaving = await t.user('WAREHOUSE_MGR', 'ALPHA');
    await t.request('PATCH', `/api/v1/users/${leaving.id}`, { token: t.adminToken, body: { active: false } });
    const request = await ok<ScrapRequestJson>(await submitStockScrap(t, w.inbound.token, { items: [{ source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 }] }), 201);
    const [holders] = await queryRows<{ ids: number[] }>(
      t,
      sql`select coalesce(array_agg(id order by id), '{}') as ids from users
           where company_name = 'ALPHA' and active and role in ('SUPER_ADMIN', 'SUPERVISOR', 'WAREHOUSE_MGR')`,
    );
    expect(request.allowed_approvers).toEqual(holders!.ids);
    expect(request.allowed_approvers).toEqual(expect.arrayContaining([w.mgr.id, supervisor.id]));
    expect(request.allowed_approvers).not.toContain(leaving.id);
    expect(request.allowed_approvers).not.toContain(w.op.id); // scrap_apply only
    expect(request.allowed_approvers).not.toContain(w.betaMgr.id);
  });

  it('refuses a request mixing modes, a mode that does not fit the source and unknown auto sources, writing nothing', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const before = await scrapCounts(t);
    const stockItem = { source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 };
    const mixed = await submitStockScrap(t, w.mgr.token, { items: [stockItem, { source_table: 'trans_defective_goods', stock_id: 1, scrap_qty: 1 }] });
    expect(mixed.statusCode).toBe(400);
    expect(mixed.json()).toMatchObject({ code: 'MIXED_SCRAP_MODES' });
    const wrongMode = await submitStockScrap(t, w.mgr.token, { mode: 'auto', items: [stockItem] });
    expect(wrongMode.statusCode).toBe(400);
    expect(wrongMode.json().code).toBe('MIXED_SCRAP_MODES');
    const unknownLine = await submitStockScrap(t, w.mgr.token, { items: [{ source_table: 'trans_borrow', stock_id: 99999999, scrap_qty: 1 }] });
    expect(unknownLine.statusCode).toBe(404);
    expect(unknownLine.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(await scrapCounts(t)).toEqual(before);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
  });

  it('answers 400 for zero quantities, unknown modes and other bad bodies, writing nothing', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const item = { source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 };
    const before = await scrapCounts(t);
    const bodies: unknown[] = [
      { reason: 'x', items: [{ ...item, scrap_qty: 0 }] },
      { reason: 'x', items: [{ ...item, scrap_qty: -1 }] },
      { reason: 'x', items: [{ ...item, scrap_qty: '1' }] },
      { reason: 'x', mode: 'manual', items: [item] },
      { reason: 'x', items: [] },
      { reason: '', items: [item] },
      { items: [item] },
      { reason: 'x', reason_category: '随便', items: [item] },
      { reason: 'x', items: [{ ...item, source_table: 'stock_rows' }] },
      { reason: 'x', items: [item], approver_ids: ['a'] },
    ];
    for (const body of bodies) {
      const response = await post(t, scrapApi('/request'), w.mgr.token, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code, JSON.stringify(body)).toBe('VALIDATION_FAILED');
    }
    const malformed = await t.request('POST', scrapApi('/request'), { token: w.mgr.token, body: '{"reason":', headers: { 'content-type': 'application/json' } });
    expect(malformed.statusCode).toBe(400);
    expect(await scrapCounts(t)).toEqual(before);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
  });

  it('refuses a reason of blanks only on every submission path (stock, borrow, ledger), writing nothing', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const borrow = await approvedBorrow(w, [{ base_id: material.id, quantity: 2 }]);
    const slip = await dispatchOk(t, w.mgr.token, { request_id: borrow.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity: 2 }], location: '研发部' });
    const { entry } = await heldEntry(w, 10, 2);
    const before = await scrapCounts(t);
    const submissions: Array<[string, Record<string, unknown>]> = [
      [scrapApi('/request'), { items: [{ source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 }] }],
      ['/api/v1/borrow/scrap-request', { borrow_ids: [slip.lines[0]!.id] }],
      [ledgerScrapPath(entry.id), { quantity: 1 }],
    ];
    for (const [path, body] of submissions) {
      const response = await post(t, path, w.mgr.token, { ...body, reason: ' \t ', approver_ids: [w.mgr.id] });
      expect(response.statusCode, path).toBe(400);
      expect(response.json(), path).toMatchObject({ code: 'VALIDATION_FAILED', field: 'reason' });
    }
    expect(await scrapCounts(t)).toEqual(before);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 10, available: 8, status: '在库' }); // only the borrow froze 2
  });

  it('refuses approver_ids naming unknown or another company’s users with 404 (contract §3), inactive ones with 400, writing nothing', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const item = { source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 };
    const leaver = await t.user('WAREHOUSE_MGR', 'ALPHA');
    await t.request('PATCH', `/api/v1/users/${leaver.id}`, { token: t.adminToken, body: { active: false } });
    const before = await scrapCounts(t);
    for (const ids of [[w.betaMgr.id], [99999999], [w.mgr.id, w.betaMgr.id, 99999999]]) {
      const strangers = await submitStockScrap(t, w.op.token, { items: [item], approver_ids: ids });
      expect(strangers.statusCode, JSON.stringify(ids)).toBe(404);
      expect(strangers.json()).toMatchObject({ code: 'NOT_FOUND', field: 'approver_ids', invalid_ids: ids.filter((id) => id !== w.mgr.id) });
    }
    const inactive = await submitStockScrap(t, w.op.token, { items: [item], approver_ids: [w.mgr.id, leaver.id] });
    expect(inactive.statusCode).toBe(400);
    expect(inactive.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'approver_ids', invalid_ids: [leaver.id] });
    expect(await scrapCounts(t)).toEqual(before);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
  });

  it('refuses rows that are short, not 在库, of another kind, unknown or of another company (404), writing nothing', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5, 5]);
    const beta = await materialWithStock(t, 'BETA', [5]);
    await t.request('POST', `/api/v1/inbound/stock/${rows[1]!.id}/change-status`, { token: w.mgr.token, body: { status: '冻结' } });
    const before = await scrapCounts(t);
    const item = (stockId: number, extra: Record<string, unknown> = {}) => ({ items: [{ source_table: 'stock_buy', stock_id: stockId, scrap_qty: 1, ...extra }] });

    const short = await submitStockScrap(t, w.mgr.token, item(rows[0]!.id, { scrap_qty: 6 }));
    expect(short.statusCode).toBe(400);
    expect(short.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 6, remaining: 5 });
    const frozen = await submitStockScrap(t, w.mgr.token, item(rows[1]!.id));
    expect(frozen.statusCode).toBe(400);
    expect(frozen.json()).toMatchObject({ code: 'NOT_IN_STOCK', status: '冻结' });
    expect((await submitStockScrap(t, w.mgr.token, item(rows[0]!.id, { source_table: 'stock_product' }))).statusCode).toBe(404);
    expect((await submitStockScrap(t, w.mgr.token, item(99999999))).statusCode).toBe(404);
    const foreign = await submitStockScrap(t, w.mgr.token, { items: [{ source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 }, { source_table: 'stock_buy', stock_id: beta.rows[0]!.id, scrap_qty: 1 }] });
    expect(foreign.statusCode).toBe(404);
    expect((await submitStockScrap(t, w.betaMgr.token, { ...item(rows[0]!.id), company_name: 'ALPHA' })).statusCode).toBe(404);

    expect(await scrapCounts(t)).toEqual(before);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
    expect(await rowState(t, beta.rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
  });

  it('makes a cross-domain caller name the company (contract §3), whose rows it must be; nothing is reserved otherwise', async () => {
    const alpha = await materialWithStock(t, 'ALPHA', [5]);
    const beta = await materialWithStock(t, 'BETA', [5]);
    const betaItem = { source_table: 'stock_buy', stock_id: beta.rows[0]!.id, scrap_qty: 1 };
    const unnamed = await submitStockScrap(t, t.adminToken, { items: [betaItem], approver_ids: [w.betaMgr.id] });
    expect(unnamed.statusCode).toBe(400);
    expect(unnamed.json()).toMatchObject({ code: 'COMPANY_REQUIRED', field: 'company_name' });
    const named = await submitStockScrap(t, t.adminToken, { company_name: 'BETA', items: [{ source_table: 'stock_buy', stock_id: alpha.rows[0]!.id, scrap_qty: 1 }] });
    expect(named.statusCode).toBe(404);
    const both = await submitStockScrap(t, t.adminToken, {
      company_name: 'BETA',
      items: [{ source_table: 'stock_buy', stock_id: alpha.rows[0]!.id, scrap_qty: 1 }, betaItem],
    });
    expect(both.statusCode).toBe(404);
    expect(await rowState(t, alpha.rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
    expect(await rowState(t, beta.rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
    const forBeta = await ok<ScrapRequestJson>(await submitStockScrap(t, t.adminToken, { company_name: 'BETA', items: [betaItem], approver_ids: [w.betaMgr.id] }), 201);
    expect(forBeta.company_name).toBe('BETA');
    expect((await withdraw(forBeta.id, t.adminToken)).statusCode).toBe(200);
  });

  it('needs scrap_apply (403) and a login (401)', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const body = { items: [{ source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 }] };
    expect((await submitStockScrap(t, w.sales.token, body)).statusCode).toBe(403);
    expect((await t.request('POST', scrapApi('/request'), { body: { reason: 'x', ...body } })).statusCode).toBe(401);
  });
});

describe('approval, rejection and withdrawal', () => {
  it('approves only for a user in allowed_approvers: anybody else, SUPER_ADMIN included, gets 400 NOT_APPROVER', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const request = await stockScrapOk(w, rows[0]!, 2);
    const otherMgr = await t.user('WAREHOUSE_MGR', 'ALPHA');
    for (const user of [otherMgr, w.op]) {
      const refused = await approve(w, request.id, user);
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'NOT_APPROVER' });
    }
    const admin = await t.request('POST', scrapApi(`/request/${request.id}/approve`), { token: t.adminToken });
    expect(admin.statusCode).toBe(400);
    expect(admin.json().code).toBe('NOT_APPROVER');
    expect((await storedScrapRequest(t, request.id)).status).toBe(0);

    const approved = await approveOk(w, request.id);
    expect(approved).toMatchObject({ status: 1, status_label: '已审批', approver_id: w.mgr.id });
    const again = await approve(w, request.id);
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('STATUS_NOT_ALLOWED');
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 3, status: '在库' });
    expect((await withdraw(request.id, w.op.token)).statusCode).toBe(200);
  });

  it('an empty allowed_approvers list refuses everybody; the request can still be withdrawn', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const request = await stockScrapOk(w, rows[0]!, 1, w.op, { approver_ids: [] });
    expect(request.allowed_approvers).toEqual([]);
    for (const token of [w.mgr.token, t.adminToken, w.op.token]) {
      const refused = await post(t, scrapApi(`/request/${request.id}/approve`), token);
      expect(refused.statusCode).toBe(400);
      expect(refused.json().code).toBe('NOT_APPROVER');
      expect((await reject(request.id, token)).statusCode).toBe(400);
    }
    const withdrawn = await ok<ScrapRequestJson>(await withdraw(request.id, w.op.token));
    expect(withdrawn).toMatchObject({ status: 4, status_label: '已撤回', close_reason: 'withdrawn' });
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
  });

  it('rejects (by an allowed approver, body optional) and releases what the request reserved', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const first = await stockScrapOk(w, rows[0]!, 2);
    const second = await stockScrapOk(w, rows[0]!, 1);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 2, status: '在库' });
    expect((await reject(first.id, w.op.token, { reason: 'x' })).statusCode).toBe(400);

    const rejected = await ok<ScrapRequestJson>(await reject(first.id, w.mgr.token, { reason: '数量有误' }));
    expect(rejected).toMatchObject({ status: 2, status_label: '已驳回', reject_reason: '数量有误' });
    expect(rejected.items.every((line) => !line.reserved)).toBe(true);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 4, status: '在库' });
    const bare = await ok<ScrapRequestJson>(await reject(second.id, w.mgr.token));
    expect(bare.reject_reason).toBeNull();
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 5, status: '在库' });
    expect((await reject(second.id, w.mgr.token)).json().code).toBe('STATUS_NOT_ALLOWED');
  });

  it('withdraws in status 0 or 1 by the applicant; others 403; once executed 400; privileged users without ownership', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [10]);
    const pending = await stockScrapOk(w, rows[0]!, 1);
    const approved = await approvedStockScrap(w, rows[0]!, 2);
    for (const user of [w.inbound, w.sales]) {
      const refused = await withdraw(pending.id, user.token);
      expect(refused.statusCode).toBe(403);
      expect(refused.json().code).toBe('NOT_OWNER');
    }
    expect((await withdraw(pending.id, w.op.token)).statusCode).toBe(200);
    const byManager = await ok<ScrapRequestJson>(await withdraw(approved.id, w.mgr.token)); // scrap_execute: privileged
    expect(byManager).toMatchObject({ status: 4, closer_id: w.mgr.id });
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 10, available: 10, status: '在库' });

    const byAdmin = await stockScrapOk(w, rows[0]!, 1);
    expect((await withdraw(byAdmin.id, t.adminToken)).statusCode).toBe(200);

    const executed = await approvedStockScrap(w, rows[0]!, 1);
    await ok(await execute(w, executed.id, { scans: [{ barcode: rows[0]!.sku, quantity: 1 }] }));
    const late = await withdraw(executed.id, w.op.token);
    expect(late.statusCode).toBe(400);
    expect(late.json().code).toBe('STATUS_NOT_ALLOWED');
    const twice = await withdraw(pending.id, w.op.token);
    expect(twice.statusCode).toBe(400);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 9, available: 9, status: '在库' });
  });
});

describe('visibility and company isolation', () => {
  it('lists the company’s requests for executors, own and to-approve ones for everybody else', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [10]);
    const byOp = await stockScrapOk(w, rows[0]!, 1, w.op, { approver_ids: [w.inbound.id] });
    const byInbound = await stockScrapOk(w, rows[0]!, 1, w.inbound, { approver_ids: [w.mgr.id] });
    const ids = async (token: string, query = '') =>
      ((await t.request('GET', scrapApi(`/request?limit=200${query}`), { token })).json().items as ScrapRequestJson[]).map((request) => request.id);

    expect(await ids(w.mgr.token)).toEqual(expect.arrayContaining([byInbound.id, byOp.id]));
    expect(await ids(w.op.token)).toContain(byOp.id);
    expect(await ids(w.op.token)).not.toContain(byInbound.id);
    expect(await ids(w.inbound.token)).toEqual(expect.arrayContaining([byOp.id, byInbound.id])); // approver of byOp
    expect(await ids(w.betaMgr.token)).not.toContain(byOp.id);
    expect(await ids(w.mgr.token, '&status=0&mode=scan&reason_category=库存报废')).toEqual(expect.arrayContaining([byOp.id]));
    expect(await ids(w.mgr.token, '&status=3')).not.toContain(byOp.id);
    expect((await t.request('GET', scrapApi(`/request/${byInbound.id}`), { token: w.op.token })).statusCode).toBe(404);
    expect((await t.request('GET', scrapApi('/request?status=9'), { token: w.mgr.token })).statusCode).toBe(400);
    // the submission time: a bare end date includes its whole Beijing day
    const day = new Date(Date.parse(String(byOp.created_at)) + 8 * 3_600_000).toISOString().slice(0, 10);
    expect(await ids(w.mgr.token, `&start_date=${day}&end_date=${day}`)).toContain(byOp.id);
    expect(await ids(w.mgr.token, `&start_date=${encodeURIComponent(new Date(Date.parse(String(byOp.created_at)) + 1000).toISOString())}`)).not.toContain(byOp.id);

    const approvedByInbound = await ok<ScrapRequestJson>(await approve(w, byOp.id, w.inbound));
    expect(approvedByInbound.approver_id).toBe(w.inbound.id);
    await withdraw(byOp.id, w.op.token);
    await withdraw(byInbound.id, w.inbound.token);
  });

  it('finds requests by keyword: number, reason, applicant, material name or spec, within what the caller sees (contract §8)', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const dropped = await stockScrapOk(w, rows[0]!, 1, w.op, { reason: '叉车跌落损坏' });
    const found = async (keyword: string, token = w.mgr.token) =>
      ((await t.request('GET', scrapApi(`/request?limit=200&keyword=${encodeURIComponent(keyword)}`), { token })).json().items as ScrapRequestJson[]).map(
        (request) => request.id,
      );
    expect(await found('叉车跌落')).toEqual([dropped.id]);
    expect(await found(material.spec_model.toUpperCase())).toEqual([dropped.id]);
    expect(await found(String(dropped.id))).toContain(dropped.id);
    expect(await found(w.op.username)).toContain(dropped.id);
    expect(await found('叉车跌落', w.betaMgr.token)).toEqual([]);
    await withdraw(dropped.id, w.op.token);
  });

  it('another company’s request is invisible and cannot be approved, executed, rejected or withdrawn (404)', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const request = await approvedStockScrap(w, rows[0]!, 2);
    const betaApprover = await stockScrapOk(w, rows[0]!, 1, w.op, { approver_ids: [w.mgr.id] });
    for (const response of [
      await t.request('GET', scrapApi(`/request/${request.id}`), { token: w.betaMgr.token }),
      await approve(w, betaApprover.id, w.betaMgr),
      await reject(betaApprover.id, w.betaMgr.token),
      await execute(w, request.id, { scans: [{ barcode: rows[0]!.sku, quantity: 1 }] }, w.betaMgr),
      await withdraw(request.id, w.betaMgr.token),
    ]) {
      expect(response.statusCode).toBe(404);
      expect(response.json().code).toBe('NOT_FOUND');
    }
    expect((await storedScrapRequest(t, request.id)).status).toBe(1);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 5, available: 2, status: '在库' });
    await withdraw(request.id, w.op.token);
    await withdraw(betaApprover.id, w.op.token);
  });

  it('records every change under 报废管理 with the actor', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const request = await approvedStockScrap(w, rows[0]!, 1);
    await ok(await execute(w, request.id, { scans: [{ barcode: rows[0]!.sku, quantity: 1 }] }));
    const audits = await queryRows<{ table_name: string; module: string; action: string; username: string; company_name: string }>(
      t,
      sql`select table_name, module, action, username, company_name from audit_logs
           where (table_name = 'scrap_requests' and target_id = ${String(request.id)})
              or (table_name = 'trans_scrap' and target_name = ${rows[0]!.sku}) order by id`,
    );
    expect(audits).toEqual([
      { table_name: 'scrap_requests', module: '报废管理', action: 'CREATE', username: w.op.username, company_name: 'ALPHA' },
      { table_name: 'scrap_requests', module: '报废管理', action: 'UPDATE', username: w.mgr.username, company_name: 'ALPHA' },
      { table_name: 'trans_scrap', module: '报废管理', action: 'CREATE', username: w.mgr.username, company_name: 'ALPHA' },
      { table_name: 'scrap_requests', module: '报废管理', action: 'UPDATE', username: w.mgr.username, company_name: 'ALPHA' },
    ]);
  });
});
