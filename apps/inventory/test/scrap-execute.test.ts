import { sql } from 'drizzle-orm';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMaterial, queryRows, stockIn, useTestApp, type MaterialJson } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';
import { approvedBorrow, borrowLedgerCheck, dispatchOk } from './borrow-fixtures.js';
import { eventually, setEmail } from './returns-fixtures.js';
import {
  approveOk,
  approvedStockScrap,
  execute,
  heldEntry,
  ledgerScrapOk,
  ledgerScrapPath,
  materialWithStock,
  nextReason,
  ok,
  post,
  recordsOfRequest,
  rowState,
  scrapApi,
  scrapCounts,
  scrapWorld,
  stockScrapOk,
  storedEntry,
  storedScrapRequest,
  type ScrapRequestJson,
  type ScrapWorld,
} from './scrap-fixtures.js';

let t: TestInventory;
let w: ScrapWorld;

// The borrow ledger check includes the stock ledger identity (open scrap reservations count).
useTestApp(scrapWorld, (built) => ({ t, w } = built), borrowLedgerCheck);

const borrowScrap = (token: string, body: Record<string, unknown>, group = '/borrow') =>
  post(t, `/api/v1${group}/scrap-request`, token, { reason: nextReason('借用'), approver_ids: [w.mgr.id], ...body });

/** A dispatched line of `quantity` from a row of `stock` (unit_cost optional), held by sales. */
async function borrowedLine(quantity: number, stock = 10, rowOverrides: Record<string, unknown> = {}) {
  const { material, rows } = await materialWithStock(t, 'ALPHA', [stock], rowOverrides);
  const request = await approvedBorrow(w, [{ base_id: material.id, quantity }]);
  const slip = await dispatchOk(t, w.mgr.token, { request_id: request.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity }], location: '研发部' });
  return { material, row: rows[0]!, line: slip.lines[0]! };
}

async function storedLine(id: number) {
  const [line] = await queryRows<{ status: string; current_holder_id: number | null }>(t, sql`select status, current_holder_id from trans_borrow where id = ${id}`);
  return line!;
}

describe('execution by scan (stock rows)', () => {
  it('deducts stock and available by the scanned quantity, records cost and loss, releases the rest', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10], { unit_cost: 12.5 });
    const request = await approvedStockScrap(w, rows[0]!, 4);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 10, available: 6, status: '在库' });

    const executed = await ok<ScrapRequestJson>(await execute(w, request.id, { scans: [{ barcode: rows[0]!.sku, quantity: 1 }, { barcode: rows[0]!.sku, quantity: 2 }] }));
    expect(executed).toMatchObject({ status: 3, status_label: '已执行', executor_id: w.mgr.id });
    expect(executed.executed_at).not.toBeNull();
    expect(executed.items.every((line) => !line.reserved)).toBe(true);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 7, available: 7, status: '在库' });
    expect(await recordsOfRequest(t, request.id)).toEqual([
      {
        source_table: 'stock_buy',
        stock_id: rows[0]!.id,
        quantity: '3',
        cost_at_scrap: '12.50',
        total_loss: '37.50',
        reason_category: '库存报废',
        track_ref: null,
        operator: w.mgr.username,
        company_name: 'ALPHA',
      },
    ]);
    expect(material.id).toBe(rows[0]!.base_id);
  });

  it('takes the cost from the material’s referencePrice without a unit cost, else 0; the loss is rounded half up', async () => {
    const priced = await createMaterial(t, t.adminToken, { company_name: 'ALPHA', referencePrice: 3.33 });
    const pricedRow = await stockIn(t, t.adminToken, { base_id: priced.id, in_quantity: 5, company_name: 'ALPHA' });
    const free = await materialWithStock(t, 'ALPHA', [5]);
    for (const [row, cost, loss] of [[pricedRow, '3.33', '5.00'], [free.rows[0]!, '0.00', '0.00']] as const) {
      const request = await approvedStockScrap(w, row, 1.5);
      await ok(await execute(w, request.id, { scans: [{ barcode: row.sku, quantity: 1.5 }] }));
      expect(await recordsOfRequest(t, request.id)).toEqual([expect.objectContaining({ cost_at_scrap: cost, total_loss: loss })]);
    }
  });

  it('refuses scans that are not on the request, exceed it, are not 在库 or of another company; nothing changes', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [10, 10]);
    const beta = await materialWithStock(t, 'BETA', [5]);
    const request = await approvedStockScrap(w, rows[0]!, 3);
    const before = await scrapCounts(t);
    const cases: Array<[unknown, number, string]> = [
      [{ scans: [{ barcode: rows[1]!.sku, quantity: 1 }] }, 400, 'VALIDATION_FAILED'], // same material, another row
      [{ scans: [{ barcode: rows[0]!.sku, quantity: 2 }, { barcode: rows[0]!.sku, quantity: 2 }] }, 400, 'QUANTITY_EXCEEDS'],
      [{ scans: [{ barcode: beta.rows[0]!.sku, quantity: 1 }] }, 403, 'OTHER_COMPANY'],
      [{ scans: [{ barcode: 'NO-SUCH-SKU', quantity: 1 }] }, 404, 'NOT_FOUND'],
      [{}, 400, 'VALIDATION_FAILED'],
      [undefined, 400, 'VALIDATION_FAILED'],
      [{ scans: [{ barcode: rows[0]!.sku, quantity: 0 }] }, 400, 'VALIDATION_FAILED'],
      [{ scans: [] }, 400, 'VALIDATION_FAILED'],
    ];
    for (const [body, status, code] of cases) {
      const response = await execute(w, request.id, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(status);
      expect(response.json().code, JSON.stringify(body)).toBe(code);
    }
    expect(await scrapCounts(t)).toEqual(before);
    await t.request('POST', `/api/v1/inbound/stock/${rows[0]!.id}/change-status`, { token: w.mgr.token, body: { status: '不良品' } });
    const beforeStatus = await scrapCounts(t);
    const notInStock = await execute(w, request.id, { scans: [{ barcode: rows[0]!.sku, quantity: 1 }] });
    expect(notInStock.statusCode).toBe(400);
    expect(notInStock.json()).toMatchObject({ code: 'NOT_IN_STOCK', status: '不良品' });
    expect(await scrapCounts(t)).toEqual(beforeStatus);
    expect((await storedScrapRequest(t, request.id)).status).toBe(1);
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 10, available: 7, status: '不良品' });
    await t.request('POST', `/api/v1/inbound/stock/${rows[0]!.id}/change-status`, { token: w.mgr.token, body: { status: '在库' } });
    await ok(await execute(w, request.id, { scans: [{ barcode: rows[0]!.sku, quantity: 3 }] }));
  });

  it('executes once, from status 1 only; needs scrap_execute, which scrap_create:operation grants', async () => {
    const { rows } = await materialWithStock(t, 'ALPHA', [10]);
    const pending = await stockScrapOk(w, rows[0]!, 1);
    const early = await execute(w, pending.id, { scans: [{ barcode: rows[0]!.sku, quantity: 1 }] });
    expect(early.statusCode).toBe(400);
    expect(early.json().code).toBe('STATUS_NOT_ALLOWED');
    await approveOk(w, pending.id);
    for (const user of [w.op, w.inbound, w.sales]) {
      expect((await execute(w, pending.id, { scans: [{ barcode: rows[0]!.sku, quantity: 1 }] }, user)).statusCode).toBe(403);
    }
    const me = await t.request('GET', '/api/v1/auth/me', { token: w.mgr.token });
    expect(me.json().permissions).toEqual(expect.arrayContaining(['scrap_apply', 'scrap_execute']));
    await ok(await execute(w, pending.id, { scans: [{ barcode: rows[0]!.sku, quantity: 1 }] }));
    const again = await execute(w, pending.id, { scans: [{ barcode: rows[0]!.sku, quantity: 0.5 }] });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('STATUS_NOT_ALLOWED');
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 9, available: 9, status: '在库' });
  });
});

describe('borrowed lines', () => {
  it('submits in auto mode for what is out (both groups), executes: the line is scrapped, its frozen quantity leaves stock', async () => {
    const first = await borrowedLine(4, 10, { unit_cost: 2 });
    const second = await borrowedLine(3, 5);
    await post(t, `/api/v1/borrow/${first.line.id}/return`, w.sales.token, { quantity: 1 });
    expect(await rowState(t, first.row.id)).toEqual({ stock: 10, available: 7, status: '在库' });

    const request = await ok<ScrapRequestJson>(await borrowScrap(w.sales.token, { borrow_ids: [second.line.id, first.line.id] }, '/transactions/borrow'), 201);
    expect(request).toMatchObject({ mode: 'auto', reason_category: '借用报废', company_name: 'ALPHA', applicant_id: w.sales.id });
    expect(request.items).toEqual([
      expect.objectContaining({ source_table: 'trans_borrow', stock_id: first.line.id, scrap_qty: 3, reserved: false, location: '研发部', sku: first.row.sku }),
      expect.objectContaining({ source_table: 'trans_borrow', stock_id: second.line.id, scrap_qty: 3, reserved: false }),
    ]);
    expect(await rowState(t, first.row.id)).toEqual({ stock: 10, available: 7, status: '在库' }); // nothing reserved

    await approveOk(w, request.id);
    const scans = await execute(w, request.id, { scans: [{ barcode: first.row.sku, quantity: 1 }] });
    expect(scans.statusCode).toBe(400);
    expect(scans.json().field).toBe('scans');
    await ok(await execute(w, request.id));
    expect(await rowState(t, first.row.id)).toEqual({ stock: 7, available: 7, status: '在库' });
    expect(await rowState(t, second.row.id)).toEqual({ stock: 2, available: 2, status: '在库' });
    expect(await storedLine(first.line.id)).toEqual({ status: 'scrapped', current_holder_id: null });
    expect(await recordsOfRequest(t, request.id)).toEqual([
      expect.objectContaining({ source_table: 'trans_borrow', stock_id: first.line.id, quantity: '3', cost_at_scrap: '2.00', total_loss: '6.00', reason_category: '借用报废' }),
      expect.objectContaining({ source_table: 'trans_borrow', stock_id: second.line.id, quantity: '3', cost_at_scrap: '0.00' }),
    ]);
    const records = await t.request('GET', `/api/v1/borrow/records?keyword=${first.row.sku}`, { token: w.mgr.token });
    expect(records.json().items[0]).toMatchObject({ status: 'scrapped' });
    const scrapped = await borrowScrap(w.sales.token, { borrow_ids: [first.line.id] });
    expect(scrapped.statusCode).toBe(400);
    expect(scrapped.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status: 'scrapped' });
  });

  it('refuses returned, scrapped, transferring, already requested and unknown lines with an error, never skipping one', async () => {
    const out = await borrowedLine(2);
    const back = await borrowedLine(2);
    await post(t, `/api/v1/borrow/${back.line.id}/return`, w.sales.token, { quantity: 2 });
    const before = await scrapCounts(t);

    const returned = await borrowScrap(w.sales.token, { borrow_ids: [out.line.id, back.line.id] });
    expect(returned.statusCode).toBe(400);
    expect(returned.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status: 'returned' });
    expect((await borrowScrap(w.sales.token, { borrow_ids: [out.line.id, 99999999] })).statusCode).toBe(404);
    expect((await borrowScrap(w.betaMgr.token, { borrow_ids: [out.line.id] })).statusCode).toBe(404);
    for (const body of [{ borrow_ids: [] }, { borrow_ids: ['1'] }, { borrow_ids: [out.line.id], reason: '' }]) {
      const response = await post(t, '/api/v1/borrow/scrap-request', w.sales.token, { reason: 'x', ...body });
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
    }
    expect((await t.request('POST', '/api/v1/borrow/scrap-request', { body: { borrow_ids: [out.line.id], reason: 'x' } })).statusCode).toBe(401);
    expect(await scrapCounts(t)).toEqual(before);

    const transfer = await borrowedLine(1);
    await post(t, `/api/v1/borrow/${transfer.line.id}/transfer`, w.sales.token, { to_user_id: w.sales2.id });
    const pending = await borrowScrap(w.sales.token, { borrow_ids: [transfer.line.id] });
    expect(pending.statusCode).toBe(400);
    expect(pending.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED' });

    const first = await ok<ScrapRequestJson>(await borrowScrap(w.sales.token, { borrow_ids: [out.line.id] }), 201);
    const onRequest = await borrowScrap(w.sales.token, { borrow_ids: [out.line.id] });
    expect(onRequest.statusCode).toBe(400);
    expect(onRequest.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', stock_id: out.line.id, request_id: first.id });
    expect((await borrowScrap(w.op.token, { borrow_ids: [out.line.id] })).statusCode).toBe(400);
    await ok(await post(t, scrapApi(`/request/${first.id}/withdraw`), w.sales.token));
    await ok(await borrowScrap(w.op.token, { borrow_ids: [out.line.id] }), 201); // free again once withdrawn
  });

  it('fails the execution cleanly when the line changed since submission', async () => {
    const { row, line } = await borrowedLine(3);
    const request = await ok<ScrapRequestJson>(await borrowScrap(w.sales.token, { borrow_ids: [line.id] }), 201);
    await approveOk(w, request.id);
    await post(t, `/api/v1/borrow/${line.id}/return`, w.sales.token, { quantity: 1 });
    const changed = await execute(w, request.id);
    expect(changed.statusCode).toBe(400);
    expect(changed.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', pending_quantity: 2 });
    expect(await storedLine(line.id)).toMatchObject({ status: 'borrowed' });
    expect(await rowState(t, row.id)).toEqual({ stock: 10, available: 8, status: '在库' });
    await post(t, `/api/v1/borrow/${line.id}/return`, w.sales.token, { quantity: 2 });
    const returned = await execute(w, request.id);
    expect(returned.statusCode).toBe(400);
    expect(returned.json().code).toBe('STATUS_NOT_ALLOWED');
    expect((await storedScrapRequest(t, request.id)).status).toBe(1);
    expect((await post(t, scrapApi(`/request/${request.id}/withdraw`), w.sales.token)).statusCode).toBe(200);
  });
});

describe('the defective ledger', () => {
  it('submits without holding anything (both groups); execution lowers remaining_qty and marks 已报废 at 0', async () => {
    const { material, row, entry } = await heldEntry(w, 10, 4, { rowOverrides: { unit_cost: 5 } });
    const partial = await ledgerScrapOk(w, entry.id, 1.5);
    expect(partial).toMatchObject({ mode: 'auto', reason_category: '不良品报废', status: 0 });
    expect(partial.items).toEqual([expect.objectContaining({ source_table: 'trans_defective_goods', stock_id: entry.id, base_id: material.id, scrap_qty: 1.5, reserved: false, sku: entry.sku })]);
    expect(await storedEntry(t, entry.id)).toEqual({ remaining_qty: '4', status: '待处理' });

    await approveOk(w, partial.id);
    await ok(await execute(w, partial.id, {}));
    expect(await storedEntry(t, entry.id)).toEqual({ remaining_qty: '2.5', status: '待处理' });
    expect(await rowState(t, row.id)).toEqual({ stock: 6, available: 6, status: '在库' }); // the ledger is not stock
    expect(await recordsOfRequest(t, partial.id)).toEqual([
      expect.objectContaining({ source_table: 'trans_defective_goods', stock_id: entry.id, quantity: '1.5', cost_at_scrap: '5.00', total_loss: '7.50' }),
    ]);

    const rest = await ok<ScrapRequestJson>(await post(t, ledgerScrapPath(entry.id, '/stock'), w.mgr.token, { quantity: 2.5, reason: nextReason(), approver_ids: [w.mgr.id] }), 201);
    await approveOk(w, rest.id);
    await ok(await execute(w, rest.id));
    expect(await storedEntry(t, entry.id)).toMatchObject({ status: '已报废' });
    expect(Number((await storedEntry(t, entry.id)).remaining_qty)).toBe(0);
  });

  it('lets requests over-subscribe an entry; the later execution fails cleanly and writes nothing', async () => {
    const { entry } = await heldEntry(w, 10, 3);
    const first = await ledgerScrapOk(w, entry.id, 2);
    const second = await ledgerScrapOk(w, entry.id, 2);
    await approveOk(w, first.id);
    await approveOk(w, second.id);
    await ok(await execute(w, first.id));
    const before = await scrapCounts(t);
    const late = await execute(w, second.id);
    expect(late.statusCode).toBe(400);
    expect(late.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', remaining_qty: 1 });
    expect(await scrapCounts(t)).toEqual(before);
    expect(await storedEntry(t, entry.id)).toEqual({ remaining_qty: '1', status: '待处理' });
    expect((await storedScrapRequest(t, second.id)).status).toBe(1);
  });

  it('refuses more than remains, finished entries, other companies and bad bodies at submission', async () => {
    const { entry } = await heldEntry(w, 10, 2);
    const beta = await heldEntry(w, 10, 2, { company: 'BETA' });
    const before = await scrapCounts(t);
    const over = await post(t, ledgerScrapPath(entry.id), w.mgr.token, { quantity: 3, reason: 'x' });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', remaining_qty: 2 });
    expect((await post(t, ledgerScrapPath(beta.entry.id), w.mgr.token, { quantity: 1, reason: 'x' })).statusCode).toBe(404);
    expect((await post(t, ledgerScrapPath(99999999), w.mgr.token, { quantity: 1, reason: 'x' })).statusCode).toBe(404);
    for (const body of [{ quantity: 0, reason: 'x' }, { quantity: 1 }, { quantity: '1', reason: 'x' }, {}]) {
      expect((await post(t, ledgerScrapPath(entry.id), w.mgr.token, body)).statusCode, JSON.stringify(body)).toBe(400);
    }
    for (const user of [w.op, w.inbound, w.sales]) {
      expect((await post(t, ledgerScrapPath(entry.id), user.token, { quantity: 1, reason: 'x' })).statusCode).toBe(403);
    }
    expect(await scrapCounts(t)).toEqual(before);
    await t.request('POST', `/api/v1/inbound/stock/defective/${entry.id}/restock`, { token: w.mgr.token, body: { quantity: 2 } });
    const finished = await post(t, ledgerScrapPath(entry.id), w.mgr.token, { quantity: 1, reason: 'x' });
    expect(finished.statusCode).toBe(400);
    expect(finished.json().code).toBe('STATUS_NOT_ALLOWED');
  });
});

describe('POST /scrap/request with auto-mode sources (contract §4: mode scan or auto)', () => {
  const autoScrap = (token: string, items: Record<string, unknown>[], extra: Record<string, unknown> = {}) =>
    post(t, scrapApi('/request'), token, { reason: nextReason('自动'), approver_ids: [w.mgr.id], items, ...extra });

  it('takes borrow lines and ledger entries on one auto request, checked as their own submissions, and executes them', async () => {
    const out = await borrowedLine(3, 10, { unit_cost: 2 });
    const { entry } = await heldEntry(w, 10, 4, { rowOverrides: { unit_cost: 5 } });
    const request = await ok<ScrapRequestJson>(
      await autoScrap(w.mgr.token, [
        { source_table: 'trans_borrow', stock_id: out.line.id, scrap_qty: 3 },
        { source_table: 'trans_defective_goods', stock_id: entry.id, scrap_qty: 1 },
        { source_table: 'trans_defective_goods', stock_id: entry.id, scrap_qty: 0.5 },
      ], { mode: 'auto' }),
      201,
    );
    expect(request).toMatchObject({ mode: 'auto', reason_category: '借用报废', company_name: 'ALPHA', status: 0 });
    expect(request.items).toEqual([
      expect.objectContaining({ source_table: 'trans_borrow', stock_id: out.line.id, scrap_qty: 3, reserved: false, location: '研发部' }),
      expect.objectContaining({ source_table: 'trans_defective_goods', stock_id: entry.id, scrap_qty: 1.5, reserved: false }),
    ]);
    expect(await rowState(t, out.row.id)).toEqual({ stock: 10, available: 7, status: '在库' }); // nothing reserved

    await approveOk(w, request.id);
    await ok(await execute(w, request.id));
    expect(await storedLine(out.line.id)).toEqual({ status: 'scrapped', current_holder_id: null });
    expect(await rowState(t, out.row.id)).toEqual({ stock: 7, available: 7, status: '在库' });
    expect(await storedEntry(t, entry.id)).toEqual({ remaining_qty: '2.5', status: '待处理' });

    const ledgerOnly = await ok<ScrapRequestJson>(await autoScrap(w.mgr.token, [{ source_table: 'trans_defective_goods', stock_id: entry.id, scrap_qty: 2.5 }]), 201);
    expect(ledgerOnly).toMatchObject({ mode: 'auto', reason_category: '不良品报废' });
  });

  it('needs the code of each source’s own submission too (defective_scrap for a ledger entry), before the lock', async () => {
    const out = await borrowedLine(2);
    const { entry } = await heldEntry(w, 10, 2);
    const before = await scrapCounts(t);
    // OUTBOUND holds scrap_apply and op_return:operation, not defective_scrap
    const ledgerItems = [{ source_table: 'trans_defective_goods', stock_id: entry.id, scrap_qty: 1 }];
    const body = { reason: nextReason('自动'), approver_ids: [w.mgr.id], items: ledgerItems };
    const twins = await Promise.all([post(t, scrapApi('/request'), w.op.token, body), post(t, scrapApi('/request'), w.op.token, body)]);
    for (const refused of twins) {
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'FORBIDDEN', msg: expect.stringContaining('defective_scrap') });
    }
    const withBorrowed = await autoScrap(w.op.token, [{ source_table: 'trans_borrow', stock_id: out.line.id, scrap_qty: 2 }, ...ledgerItems]);
    expect(withBorrowed.statusCode).toBe(403);
    expect(await scrapCounts(t)).toEqual(before);

    await ok(await autoScrap(w.op.token, [{ source_table: 'trans_borrow', stock_id: out.line.id, scrap_qty: 2 }]), 201);
    await ok(await autoScrap(w.mgr.token, ledgerItems), 201);
  });

  it('refuses part of a borrowed line, more than is out or held, another company and both modes at once, writing nothing', async () => {
    const out = await borrowedLine(4);
    const { entry } = await heldEntry(w, 10, 2);
    const beta = await heldEntry(w, 10, 1, { company: 'BETA' });
    const { rows } = await materialWithStock(t, 'ALPHA', [5]);
    const before = await scrapCounts(t);

    const part = await autoScrap(w.mgr.token, [{ source_table: 'trans_borrow', stock_id: out.line.id, scrap_qty: 1 }]);
    expect(part.statusCode).toBe(400);
    expect(part.json()).toMatchObject({ code: 'SPLIT_REQUIRED', pending_quantity: 4 });
    const more = await autoScrap(w.mgr.token, [{ source_table: 'trans_borrow', stock_id: out.line.id, scrap_qty: 5 }]);
    expect(more.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS' });
    const overHeld = await autoScrap(w.mgr.token, [{ source_table: 'trans_defective_goods', stock_id: entry.id, scrap_qty: 3 }]);
    expect(overHeld.statusCode).toBe(400);
    const foreign = await autoScrap(w.mgr.token, [{ source_table: 'trans_defective_goods', stock_id: beta.entry.id, scrap_qty: 1 }]);
    expect(foreign.statusCode).toBe(404);
    const mixed = await autoScrap(w.mgr.token, [
      { source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 },
      { source_table: 'trans_borrow', stock_id: out.line.id, scrap_qty: 4 },
    ]);
    expect(mixed.json()).toMatchObject({ code: 'MIXED_SCRAP_MODES' });
    expect(await scrapCounts(t)).toEqual(before);
    expect(await storedLine(out.line.id)).toEqual({ status: 'borrowed', current_holder_id: w.sales.id });
  });
});

describe('GET /scrap/scan', () => {
  it('chooses between a stock row and ledger entries of one sku by the request, else by the fixed order', async () => {
    const { row, entry } = await heldEntry(w, 10, 2);
    const plain = await ok<Record<string, unknown>>(await t.request('GET', scrapApi(`/scan?barcode=${row.sku}`), { token: w.mgr.token }));
    expect(plain).toMatchObject({ source_table: 'stock_buy', stock_id: row.id, stock_quantity: 8, available_quantity: 8, in_request: false, request_scrap_qty: null });

    const ledgerRequest = await ledgerScrapOk(w, entry.id, 1);
    const byLedger = await ok<Record<string, unknown>>(await t.request('GET', scrapApi(`/scan?barcode=${row.sku}&request_id=${ledgerRequest.id}`), { token: w.mgr.token }));
    expect(byLedger).toMatchObject({ source_table: 'trans_defective_goods', stock_id: entry.id, remaining_qty: 2, available_quantity: 2, in_request: true, request_scrap_qty: 1, stock_quantity: null });

    const stockRequest = await stockScrapOk(w, row, 3);
    const byStock = await ok<Record<string, unknown>>(await t.request('GET', scrapApi(`/scan?barcode=${row.sku}&request_id=${stockRequest.id}`), { token: w.op.token }));
    expect(byStock).toMatchObject({ source_table: 'stock_buy', stock_id: row.id, live_available_quantity: 5, available_quantity: 8, in_request: true, request_scrap_qty: 3 });

    await post(t, scrapApi(`/request/${stockRequest.id}/withdraw`), w.op.token);
    await post(t, scrapApi(`/request/${ledgerRequest.id}/withdraw`), w.mgr.token);
    expect((await t.request('DELETE', `/api/v1/inbound/stock/${row.id}`, { token: w.mgr.token })).statusCode).toBe(200);
    const onlyLedger = await ok<Record<string, unknown>>(await t.request('GET', scrapApi(`/scan?barcode=${row.sku}`), { token: w.mgr.token }));
    expect(onlyLedger).toMatchObject({ source_table: 'trans_defective_goods', stock_id: entry.id });
  });

  it('accepts only a 在库 stock row (400 NOT_IN_STOCK otherwise, as the outbound scan); a ledger entry of its sku stays scannable by its request', async () => {
    const { row, entry } = await heldEntry(w, 10, 2);
    const ledgerRequest = await ledgerScrapOk(w, entry.id, 1);
    for (const status of ['冻结', '不良品']) {
      await ok(await post(t, `/api/v1/inbound/stock/${row.id}/change-status`, w.mgr.token, { status }));
      const refused = await t.request('GET', scrapApi(`/scan?barcode=${row.sku}`), { token: w.mgr.token });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'NOT_IN_STOCK', status });
      const byLedger = await ok<Record<string, unknown>>(await t.request('GET', scrapApi(`/scan?barcode=${row.sku}&request_id=${ledgerRequest.id}`), { token: w.mgr.token }));
      expect(byLedger).toMatchObject({ source_table: 'trans_defective_goods', stock_id: entry.id, in_request: true });
    }
    await ok(await post(t, `/api/v1/inbound/stock/${row.id}/change-status`, w.mgr.token, { status: '在库' }));
    expect((await t.request('GET', scrapApi(`/scan?barcode=${row.sku}`), { token: w.mgr.token })).json()).toMatchObject({ source_table: 'stock_buy', status: '在库' });
  });

  it('answers 404 for an unknown barcode or request, 403 OTHER_COMPANY for another company’s, 403 without a scrap code', async () => {
    const beta = await materialWithStock(t, 'BETA', [3]);
    expect((await t.request('GET', scrapApi('/scan?barcode=NOPE-123'), { token: w.mgr.token })).statusCode).toBe(404);
    const foreign = await t.request('GET', scrapApi(`/scan?barcode=${beta.rows[0]!.sku}`), { token: w.mgr.token });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA' });
    expect((await t.request('GET', scrapApi(`/scan?barcode=${beta.rows[0]!.sku}&request_id=99999999`), { token: w.betaMgr.token })).statusCode).toBe(404);
    expect((await t.request('GET', scrapApi(`/scan?barcode=${beta.rows[0]!.sku}`), { token: w.sales.token })).statusCode).toBe(403);
    expect((await t.request('GET', scrapApi('/scan'), { token: w.mgr.token })).statusCode).toBe(400);
  });

  it("a cross-domain caller scanning for a request gets 403 OTHER_COMPANY for a barcode of another company than the request's", async () => {
    const alpha = await materialWithStock(t, 'ALPHA', [3]);
    const beta = await materialWithStock(t, 'BETA', [3]);
    const request = await stockScrapOk(w, alpha.rows[0]!, 1);
    const foreign = await t.request('GET', scrapApi(`/scan?barcode=${beta.rows[0]!.sku}&request_id=${request.id}`), { token: t.adminToken });
    expect(foreign.statusCode).toBe(403);
    expect(foreign.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'BETA' });
    const own = await t.request('GET', scrapApi(`/scan?barcode=${alpha.rows[0]!.sku}&request_id=${request.id}`), { token: t.adminToken });
    expect(own.statusCode).toBe(200);
    expect((await t.request('GET', scrapApi(`/scan?barcode=${beta.rows[0]!.sku}`), { token: t.adminToken })).statusCode).toBe(200);
  });
});

describe('low-stock alert after a scrap', () => {
  let purchaser: TestUser;
  beforeAll(async () => {
    purchaser = await t.user('WAREHOUSE_MGR', 'ALPHA');
    await setEmail(t, purchaser, 'scrap-purchaser@alpha.example');
  });

  const mailsAbout = (material: MaterialJson) =>
    queryRows<{ subject: string; to_addresses: string[] }>(t, sql`select subject, to_addresses from mail_outbox where subject like ${`%${material.name}%`} order by id`);

  it('sends the low-stock mail after commit when a scrap takes a material to its threshold (scan and borrow)', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    await t.request('PUT', `/api/v1/inbound/base/${material.id}`, { token: w.mgr.token, body: { yellow_threshold: 6, red_threshold: 3 } });
    const request = await approvedStockScrap(w, rows[0]!, 4);
    expect(await mailsAbout(material)).toEqual([]); // a reservation leaves physical stock alone
    await ok(await execute(w, request.id, { scans: [{ barcode: rows[0]!.sku, quantity: 4 }] }));
    const yellow = await eventually(() => mailsAbout(material), (mails) => mails.length >= 1);
    expect(yellow).toHaveLength(1);
    expect(yellow[0]!.subject).toContain('黄色');
    expect(yellow[0]!.to_addresses).toContain('scrap-purchaser@alpha.example');

    const borrowRequest = await approvedBorrow(w, [{ base_id: material.id, quantity: 3 }]);
    const slip = await dispatchOk(t, w.mgr.token, { request_id: borrowRequest.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity: 3 }] });
    const scrap = await ok<ScrapRequestJson>(await borrowScrap(w.sales.token, { borrow_ids: [slip.lines[0]!.id] }), 201);
    await approveOk(w, scrap.id);
    await ok(await execute(w, scrap.id));
    const red = await eventually(() => mailsAbout(material), (mails) => mails.length >= 2);
    expect(red[1]!.subject).toContain('红色');
  });
});
