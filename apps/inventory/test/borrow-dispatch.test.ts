import { describe, expect, it } from 'vitest';
import type { TestInventory } from './helpers.js';
import {
  approveBorrowOk,
  approvedBorrow,
  borrowCounts,
  dispatch,
  dispatchOk,
  groupApi,
  materialWithStock,
  post,
  rowState,
  storedBorrowRequest,
  storedLine,
  submitBorrowOk,
  useBorrowWorld,
  type BorrowWorld,
} from './borrow-fixtures.js';

let t: TestInventory;
let w: BorrowWorld;

useBorrowWorld((built) => ({ t, w } = built), { checkLedger: true });

describe('dispatch by scan', () => {
  it('turns the reservation into a borrow freeze per scanned row and deducts no stock', async () => {
    const first = await materialWithStock(t, 'ALPHA', [6, 10]);
    const second = await materialWithStock(t, 'ALPHA', [5]);
    const request = await approvedBorrow(w, [
      { base_id: first.material.id, quantity: 8 },
      { base_id: second.material.id, quantity: 2 },
    ]);
    // allocated: 8 from the 10-row; scanned instead: 3 from the 6-row and 4 from the 10-row, 2 of the second
    const [six, ten] = first.rows;
    const slip = await dispatchOk(t, w.mgr.token, {
      request_id: request.id,
      borrower_id: w.sales2.id,
      borrower_name: '冒名者',
      lines: [
        { barcode: ten!.sku, quantity: 4 },
        { barcode: six!.sku, quantity: 1 },
        { barcode: second.rows[0]!.sku, quantity: 2 },
        { barcode: six!.sku, quantity: 2 },
      ],
      location: ' 三楼实验室 ',
    });

    expect(slip.borrow_no).toMatch(/^JY\d{8}\d{6,}$/);
    expect(slip.lines.map((line) => [line.stock_id, line.quantity])).toEqual([
      [six!.id, 3],
      [ten!.id, 4],
      [second.rows[0]!.id, 2],
    ]);
    for (const line of slip.lines) {
      expect(line).toMatchObject({
        borrow_no: slip.borrow_no,
        request_id: request.id,
        borrower_id: w.sales2.id,
        borrower_name: '销售乙',
        current_holder_id: w.sales2.id,
        current_holder_name: '销售乙',
        dispatch_operator: w.mgr.username,
        location: '三楼实验室',
        status: 'borrowed',
        returned_quantity: 0,
        company_name: 'ALPHA',
        split_from_id: null,
        pending_transfer: null,
        returned_at: null,
      });
    }
    expect(slip.lines[0]).toMatchObject({ base_id: first.material.id, sku: six!.sku, material_name: first.material.name, source_table: 'stock_buy' });

    expect(await rowState(t, six!.id)).toEqual({ stock: 6, available: 3, status: '在库' });
    expect(await rowState(t, ten!.id)).toEqual({ stock: 10, available: 6, status: '在库' });
    expect(await rowState(t, second.rows[0]!.id)).toEqual({ stock: 5, available: 3, status: '在库' });
    const stored = await storedBorrowRequest(t, request.id);
    expect(stored.status).toBe(3);
    expect(stored.items_json.every((line) => !line.reserved)).toBe(true);
    const read = await t.request('GET', `/api/v1/borrow/request/${request.id}`, { token: w.mgr.token });
    expect(read.json()).toMatchObject({ status: 3, status_label: '已借出' });
    expect(read.json().dispatched_at).toBeTruthy();
  });

  it('releases whatever was reserved and not dispatched', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const request = await approvedBorrow(w, [{ base_id: material.id, quantity: 6 }]);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 4 });
    await dispatchOk(t, w.op.token, { request_id: request.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity: 2 }] });
    expect(await rowState(t, rows[0]!.id)).toEqual({ stock: 10, available: 8, status: '在库' });
  });

  it('is served under /transactions/borrow/dispatch too', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [3]);
    const request = await approvedBorrow(w, [{ base_id: material.id, quantity: 1 }]);
    const response = await t.request('POST', groupApi('/dispatch'), {
      token: w.mgr.token,
      body: { request_id: request.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity: 1 }] },
    });
    expect(response.statusCode).toBe(201);
    expect(response.json().lines).toHaveLength(1);
  });
});

describe('dispatch refusals write nothing', () => {
  async function setup(quantity = 3) {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 2]);
    const request = await approvedBorrow(w, [{ base_id: material.id, quantity }]);
    return { material, rows, request, body: { request_id: request.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity }] } };
  }

  async function expectRefused(token: string, body: unknown, status: number, code: string) {
    const before = await borrowCounts(t);
    const response = await dispatch(t, token, body as Record<string, unknown>);
    expect(response.statusCode, response.body).toBe(status);
    expect(response.json().code).toBe(code);
    expect(response.json().msg).toBeTruthy();
    expect(await borrowCounts(t)).toEqual(before);
    return response;
  }

  it('needs op_borrow_dispatch', async () => {
    const { body, request, rows } = await setup();
    await expectRefused(w.sales.token, body, 403, 'FORBIDDEN');
    expect((await storedBorrowRequest(t, request.id)).status).toBe(1);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 7 });
    await post(t, `/request/${request.id}/close`, w.mgr.token);
  });

  it('only an approved request, once', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const pending = await submitBorrowOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }]);
    const body = { request_id: pending.id, borrower_id: w.sales.id, lines: [{ barcode: rows[0]!.sku, quantity: 1 }] };
    await expectRefused(w.mgr.token, body, 400, 'STATUS_NOT_ALLOWED');
    await approveBorrowOk(t, w.mgr.token, pending.id);
    await dispatchOk(t, w.mgr.token, body);
    const again = await expectRefused(w.mgr.token, { ...body, location: '再次' }, 400, 'STATUS_NOT_ALLOWED');
    expect(again.json().msg).toContain('已借出');
    const closed = await setup();
    await post(t, `/request/${closed.request.id}/close`, w.mgr.token);
    await expectRefused(w.mgr.token, closed.body, 400, 'STATUS_NOT_ALLOWED');
  });

  it('the borrower must be an active user of the request\'s company', async () => {
    const { body, request, rows } = await setup();
    const { borrower_id: _unused, ...withoutBorrower } = body;
    await expectRefused(w.mgr.token, withoutBorrower, 400, 'VALIDATION_FAILED');
    await expectRefused(w.mgr.token, { ...body, borrower_id: w.betaSales.id }, 404, 'NOT_FOUND');
    await expectRefused(w.mgr.token, { ...body, borrower_id: 999999 }, 404, 'NOT_FOUND');
    await expectRefused(w.mgr.token, { ...body, borrower_id: 'me' }, 400, 'VALIDATION_FAILED');
    const leaver = await t.user('SALES', 'ALPHA');
    await t.request('PATCH', `/api/v1/users/${leaver.id}`, { token: w.admin, body: { active: false } });
    const inactive = await expectRefused(w.mgr.token, { ...body, borrower_id: leaver.id }, 400, 'VALIDATION_FAILED');
    expect(inactive.json().field).toBe('borrower_id');
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 7 });
    expect((await storedBorrowRequest(t, request.id)).status).toBe(1);
    await post(t, `/request/${request.id}/close`, w.mgr.token);
  });

  it('scanned rows must be 在库, of a requested material, within the requested quantity', async () => {
    const { body, request, rows, material } = await setup(3);
    await t.request('POST', `/api/v1/inbound/stock/${rows[1]!.id}/change-status`, { token: w.admin, body: { status: '不良品' } });
    const notInStock = await expectRefused(w.mgr.token, { ...body, lines: [{ barcode: rows[1]!.sku, quantity: 1 }] }, 400, 'NOT_IN_STOCK');
    expect(notInStock.json().barcode).toBe(rows[1]!.sku);

    const other = await materialWithStock(t, 'ALPHA', [5]);
    await expectRefused(w.mgr.token, { ...body, lines: [{ barcode: other.rows[0]!.sku, quantity: 1 }] }, 400, 'VALIDATION_FAILED');

    const exceeds = await expectRefused(
      w.mgr.token,
      { ...body, lines: [{ barcode: rows[0]!.sku, quantity: 2 }, { barcode: rows[0]!.sku, quantity: 1.5 }] },
      400,
      'QUANTITY_EXCEEDS',
    );
    expect(exceeds.json()).toMatchObject({ base_id: material.id, requested: 3, scanned: 3.5 });

    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 10, available: 7 });
    expect((await storedBorrowRequest(t, request.id)).status).toBe(1);
    await post(t, `/request/${request.id}/close`, w.mgr.token);
  });

  it('a substitute row\'s available quantity is never driven below 0', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 2]);
    const request = await approvedBorrow(w, [{ base_id: material.id, quantity: 3 }]);
    const response = await dispatch(t, w.mgr.token, {
      request_id: request.id,
      borrower_id: w.sales.id,
      lines: [{ barcode: rows[1]!.sku, quantity: 3 }],
    });
    expect(response.statusCode).toBe(400);
    expect(response.json()).toMatchObject({ code: 'STOCK_SHORTAGE', needed: 3, remaining: 2 });
    expect(await rowState(t, rows[1]!.id)).toMatchObject({ available: 2 });
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 7 });
    await post(t, `/request/${request.id}/close`, w.mgr.token);
  });

  it('unknown barcodes are 404, another company\'s are 403 OTHER_COMPANY, another company\'s request 404', async () => {
    const { body, request } = await setup();
    await expectRefused(w.mgr.token, { ...body, lines: [{ barcode: 'NO-SUCH-SKU', quantity: 1 }] }, 404, 'NOT_FOUND');
    const beta = await materialWithStock(t, 'BETA', [5]);
    const other = await expectRefused(w.mgr.token, { ...body, lines: [{ barcode: beta.rows[0]!.sku, quantity: 1 }] }, 403, 'OTHER_COMPANY');
    expect(other.json().company).toBe('BETA');
    await expectRefused(w.betaMgr.token, body, 404, 'NOT_FOUND');
    await expectRefused(w.mgr.token, { ...body, request_id: 999999 }, 404, 'NOT_FOUND');
    await post(t, `/request/${request.id}/close`, w.mgr.token);
  });

  it('bad input is 400', async () => {
    const { body, request } = await setup();
    const bad: unknown[] = [
      {},
      { ...body, request_id: undefined },
      { ...body, lines: [] },
      { ...body, lines: [{ barcode: body.lines[0]!.barcode, quantity: 0 }] },
      { ...body, lines: [{ barcode: body.lines[0]!.barcode, quantity: -2 }] },
      { ...body, lines: [{ barcode: body.lines[0]!.barcode, quantity: '1' }] },
      { ...body, lines: [{ barcode: '', quantity: 1 }] },
      { ...body, lines: [{ barcode: '   ', quantity: 1 }] },
      { ...body, location: 12 },
    ];
    for (const candidate of bad) await expectRefused(w.mgr.token, candidate, 400, 'VALIDATION_FAILED');
    const malformed = await t.request('POST', '/api/v1/borrow/dispatch', {
      token: w.mgr.token,
      body: '{"request_id":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    await post(t, `/request/${request.id}/close`, w.mgr.token);
  });

  it('the line holds the borrower whoever dispatched it; a borrower of another role is fine', async () => {
    const { body } = await setup(2);
    const slip = await dispatchOk(t, w.op.token, { ...body, borrower_id: w.inbound.id });
    expect(await storedLine(t, slip.lines[0]!.id)).toMatchObject({ current_holder_id: w.inbound.id, borrower_id: w.inbound.id });
    expect(slip.lines[0]).toMatchObject({ borrower_name: '入库员', dispatch_operator: w.op.username, is_mine: false, can_transfer: false });
  });
});
