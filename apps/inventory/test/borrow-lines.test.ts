import { sql } from 'drizzle-orm';
import { afterAll, describe, expect, it } from 'vitest';
import { queryRows } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import {
  approvedBorrow,
  borrowCounts,
  borrowedLine,
  dispatchOk,
  get,
  groupApi,
  materialWithStock,
  post,
  rowState,
  storedLine,
  useBorrowWorld,
  type BorrowWorld,
  type LineJson,
  type TransferJson,
} from './borrow-fixtures.js';

let t: TestInventory;
let w: BorrowWorld;

useBorrowWorld((built) => ({ t, w } = built), { checkLedger: true });

async function expectRefused(call: () => Promise<{ statusCode: number; json(): Record<string, unknown>; body: string }>, status: number, code: string) {
  const before = await borrowCounts(t);
  const response = await call();
  expect(response.statusCode, response.body).toBe(status);
  expect(response.json().code).toBe(code);
  expect(response.json().msg).toBeTruthy();
  expect(await borrowCounts(t)).toEqual(before);
  return response;
}

const transfer = (lineId: number, token: string, body: Record<string, unknown>) => post(t, `/${lineId}/transfer`, token, body);

async function transferOk(lineId: number, token: string, toUserId: number): Promise<TransferJson> {
  const response = await transfer(lineId, token, { to_user_id: toUserId });
  if (response.statusCode !== 201) throw new Error(`transfer failed (${response.statusCode}): ${response.body}`);
  return response.json() as TransferJson;
}

describe('returning a borrowed line', () => {
  it('the holder returns in parts: available grows, stock stays, one return row per action', async () => {
    const { line, row } = await borrowedLine(w, 4, 10);
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 6 });

    const part = await post(t, `/${line.id}/return`, w.sales.token, { quantity: 1.5, location: 'A/01/01', remark: '先还一部分' });
    expect(part.statusCode).toBe(200);
    expect(part.json()).toMatchObject({ id: line.id, status: 'borrowed', returned_quantity: 1.5, pending_quantity: 2.5, current_holder_id: w.sales.id, is_mine: true });
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 7.5 });

    const rest = await t.request('POST', groupApi(`/${line.id}/return`), { token: w.sales.token, body: { quantity: 2.5 } });
    expect(rest.statusCode).toBe(200);
    expect(rest.json()).toMatchObject({ status: 'returned', returned_quantity: 4, pending_quantity: 0, current_holder_id: null, is_mine: false, can_transfer: false });
    expect(rest.json().returned_at).toBeTruthy();
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 10 });

    const returns = await queryRows<{ quantity: string; location: string; remark: string | null; operator: string; operator_id: number; company_name: string }>(
      t,
      sql`select quantity::text, location, remark, operator, operator_id, company_name from trans_borrow_return where borrow_id = ${line.id} order by id`,
    );
    expect(returns).toEqual([
      { quantity: '1.5', location: 'A/01/01', remark: '先还一部分', operator: w.sales.username, operator_id: w.sales.id, company_name: 'ALPHA' },
      { quantity: '2.5', location: '', remark: null, operator: w.sales.username, operator_id: w.sales.id, company_name: 'ALPHA' },
    ]);

    await expectRefused(() => post(t, `/${line.id}/return`, w.sales.token, { quantity: 1 }), 400, 'STATUS_NOT_ALLOWED');
  });

  it('nobody but the current holder returns: 403 NOT_HOLDER and nothing changes', async () => {
    const { line, row } = await borrowedLine(w, 3, 5);
    for (const token of [w.sales2.token, w.mgr.token, w.inbound.token]) {
      await expectRefused(() => post(t, `/${line.id}/return`, token, { quantity: 1 }), 403, 'NOT_HOLDER');
    }
    expect(await rowState(t, row.id)).toMatchObject({ stock: 5, available: 2 });
    expect(await storedLine(t, line.id)).toMatchObject({ returned_quantity: 0, current_holder_id: w.sales.id });
    await expectRefused(() => post(t, `/${line.id}/return`, w.betaSales.token, { quantity: 1 }), 404, 'NOT_FOUND');
  });

  it('refuses more than is out, and bad input, writing nothing', async () => {
    const { line, row } = await borrowedLine(w, 3, 5);
    const exceeds = await expectRefused(() => post(t, `/${line.id}/return`, w.sales.token, { quantity: 3.01 }), 400, 'QUANTITY_EXCEEDS');
    expect(exceeds.json()).toMatchObject({ pending_quantity: 3 });
    for (const body of [{}, { quantity: 0 }, { quantity: -1 }, { quantity: '1' }, { quantity: 1, location: 5 }]) {
      await expectRefused(() => post(t, `/${line.id}/return`, w.sales.token, body), 400, 'VALIDATION_FAILED');
    }
    await expectRefused(() => post(t, '/999999/return', w.sales.token, { quantity: 1 }), 404, 'NOT_FOUND');
    await expectRefused(() => post(t, '/x/return', w.sales.token, { quantity: 1 }), 400, 'VALIDATION_FAILED');
    expect(await rowState(t, row.id)).toMatchObject({ available: 2 });
  });
});

describe('transferring a line between holders', () => {
  it('offers the whole line; accepting moves that one line only; no stock moves', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10, 10]);
    const request = await approvedBorrow(w, [{ base_id: material.id, quantity: 6 }]);
    const slip = await dispatchOk(t, w.mgr.token, {
      request_id: request.id,
      borrower_id: w.sales.id,
      lines: [
        { barcode: rows[0]!.sku, quantity: 4 },
        { barcode: rows[1]!.sku, quantity: 2 },
      ],
    });
    const [first, second] = slip.lines as [LineJson, LineJson];
    const stockBefore = [await rowState(t, rows[0]!.id), await rowState(t, rows[1]!.id)];

    const offered = await transfer(first.id, w.sales.token, { to_user_id: w.sales2.id, quantity: 4 });
    expect(offered.statusCode).toBe(201);
    expect(offered.json()).toMatchObject({
      borrow_id: first.id,
      borrow_no: slip.borrow_no,
      material_name: material.name,
      from_user_id: w.sales.id,
      from_user_name: '销售甲',
      to_user_id: w.sales2.id,
      to_user_name: '销售乙',
      quantity: 4,
      status: 'PENDING',
      reject_seen_at: null,
      decided_at: null,
    });
    expect(await storedLine(t, first.id)).toMatchObject({ current_holder_id: w.sales.id });
    // Two lines of one slip may have PENDING transfers at once.
    const secondOffer = await transferOk(second.id, w.sales.token, w.inbound.id);

    const count = await get(t, '/transfer/pending-count', w.sales2.token);
    expect(count.json()).toEqual({ count: 1, rejects: [] });

    for (const token of [w.sales.token, w.inbound.token, w.mgr.token]) {
      await expectRefused(() => post(t, `/transfer/${offered.json().id}/accept`, token), 403, 'NOT_RECEIVER');
    }
    const accepted = await post(t, `/transfer/${offered.json().id}/accept`, w.sales2.token);
    expect(accepted.statusCode).toBe(200);
    expect(accepted.json()).toMatchObject({ status: 'ACCEPTED', to_user_id: w.sales2.id });
    expect(accepted.json().decided_at).toBeTruthy();
    expect(await storedLine(t, first.id)).toMatchObject({ current_holder_id: w.sales2.id, borrower_id: w.sales.id });
    expect(await storedLine(t, second.id)).toMatchObject({ current_holder_id: w.sales.id });
    expect([await rowState(t, rows[0]!.id), await rowState(t, rows[1]!.id)]).toEqual(stockBefore);

    // The former holder can no longer return or hand it on; the new one can.
    await expectRefused(() => post(t, `/${first.id}/return`, w.sales.token, { quantity: 1 }), 403, 'NOT_HOLDER');
    await expectRefused(() => transfer(first.id, w.sales.token, { to_user_id: w.inbound.id }), 403, 'NOT_HOLDER');
    await expectRefused(() => post(t, `/transfer/${offered.json().id}/accept`, w.sales2.token), 400, 'STATUS_NOT_ALLOWED');
    await expectRefused(() => post(t, `/transfer/${offered.json().id}/reject`, w.sales2.token, {}), 400, 'STATUS_NOT_ALLOWED');
    const returned = await post(t, `/${first.id}/return`, w.sales2.token, { quantity: 4 });
    expect(returned.json()).toMatchObject({ status: 'returned', current_holder_id: null });

    const secondAccepted = await t.request('POST', groupApi(`/transfer/${secondOffer.id}/accept`), { token: w.inbound.token });
    expect(secondAccepted.statusCode).toBe(200);
    expect(await storedLine(t, second.id)).toMatchObject({ current_holder_id: w.inbound.id });
    await post(t, `/${second.id}/return`, w.inbound.token, { quantity: 2 });
  });

  it('a part of a line is refused with SPLIT_REQUIRED telling the user to split first', async () => {
    const { line } = await borrowedLine(w, 5);
    const partial = await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: w.sales2.id, quantity: 2 }), 400, 'SPLIT_REQUIRED');
    expect(partial.json().msg).toContain('拆分');
    expect(partial.json()).toMatchObject({ pending_quantity: 5 });
    await post(t, `/${line.id}/return`, w.sales.token, { quantity: 1 });
    await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: w.sales2.id, quantity: 5 }), 400, 'SPLIT_REQUIRED');
    const whole = await transfer(line.id, w.sales.token, { to_user_id: w.sales2.id, quantity: 4 });
    expect(whole.statusCode).toBe(201);
    expect(whole.json().quantity).toBe(4);
    await post(t, `/transfer/${whole.json().id}/reject`, w.sales2.token, {});
  });

  it('refuses a non-holder, a receiver who is the holder or not an active colleague, and a second offer', async () => {
    const { line } = await borrowedLine(w, 2);
    await expectRefused(() => transfer(line.id, w.sales2.token, { to_user_id: w.inbound.id }), 403, 'NOT_HOLDER');
    await expectRefused(() => transfer(line.id, w.mgr.token, { to_user_id: w.inbound.id }), 403, 'NOT_HOLDER');
    await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: w.sales.id }), 400, 'VALIDATION_FAILED');
    await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: w.betaSales.id }), 404, 'NOT_FOUND');
    await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: 999999 }), 404, 'NOT_FOUND');
    const leaver = await t.user('SALES', 'ALPHA');
    await t.request('PATCH', `/api/v1/users/${leaver.id}`, { token: w.admin, body: { active: false } });
    await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: leaver.id }), 400, 'VALIDATION_FAILED');
    for (const body of [{}, { to_user_id: 'x' }, { to_user_id: w.sales2.id, quantity: 0 }, { to_user_id: w.sales2.id, quantity: -2 }]) {
      await expectRefused(() => transfer(line.id, w.sales.token, body), 400, 'VALIDATION_FAILED');
    }
    await expectRefused(() => transfer(999999, w.sales.token, { to_user_id: w.sales2.id }), 404, 'NOT_FOUND');
    await expectRefused(() => transfer(line.id, w.betaSales.token, { to_user_id: w.sales2.id }), 404, 'NOT_FOUND');

    const pending = await transferOk(line.id, w.sales.token, w.sales2.id);
    const second = await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: w.inbound.id }), 400, 'STATUS_NOT_ALLOWED');
    expect(second.json().transfer_id).toBe(pending.id);
    // the waiting transfer is named before a quantity problem (decisions, Borrow 4)
    const partial = await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: w.inbound.id, quantity: 1 }), 400, 'STATUS_NOT_ALLOWED');
    expect(partial.json().transfer_id).toBe(pending.id);
    // While a transfer waits, the holder can neither return nor split the line.
    await expectRefused(() => post(t, `/${line.id}/return`, w.sales.token, { quantity: 1 }), 400, 'STATUS_NOT_ALLOWED');
    await expectRefused(() => post(t, `/${line.id}/split`, w.sales.token, { quantity: 1 }), 400, 'STATUS_NOT_ALLOWED');
    await expectRefused(() => post(t, `/transfer/${pending.id}/accept`, w.betaSales.token), 404, 'NOT_FOUND');
    await post(t, `/transfer/${pending.id}/reject`, w.sales2.token, { reason: '不需要' });
    await post(t, `/${line.id}/return`, w.sales.token, { quantity: 2 });
    await expectRefused(() => transfer(line.id, w.sales.token, { to_user_id: w.sales2.id }), 400, 'STATUS_NOT_ALLOWED');
  });

  it('a rejection leaves the holder, is shown to the initiator until acknowledged, and acknowledging twice is a no-op', async () => {
    const { line, material } = await borrowedLine(w, 2);
    const offer = await transferOk(line.id, w.sales.token, w.inbound.id);
    const rejected = await post(t, `/transfer/${offer.id}/reject`, w.inbound.token, { reason: ' 暂不需要 ' });
    expect(rejected.statusCode).toBe(200);
    expect(rejected.json()).toMatchObject({ status: 'REJECTED', reason: '暂不需要', reject_seen_at: null });
    expect(await storedLine(t, line.id)).toMatchObject({ current_holder_id: w.sales.id });

    const initiator = await get(t, '/transfer/pending-count', w.sales.token);
    expect(initiator.json().count).toBe(0);
    // earlier tests left the initiator other rejections; this one is among them
    expect(initiator.json().rejects).toContainEqual(
      expect.objectContaining({ id: offer.id, borrow_id: line.id, material_name: material.name, to_user_id: w.inbound.id, receiver_name: '入库员', reason: '暂不需要', quantity: 2 }),
    );
    expect((await t.request('GET', groupApi('/transfer/pending-count'), { token: w.sales.token })).json()).toEqual(initiator.json());

    await expectRefused(() => post(t, '/transfer/reject-ack', w.inbound.token, { transfer_ids: [offer.id] }), 403, 'FORBIDDEN');
    await expectRefused(() => post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [999999] }), 404, 'NOT_FOUND');
    await expectRefused(() => post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [] }), 400, 'VALIDATION_FAILED');
    await expectRefused(() => post(t, '/transfer/reject-ack', w.sales.token, {}), 400, 'VALIDATION_FAILED');
    await expectRefused(() => post(t, '/transfer/reject-ack', w.betaSales.token, { transfer_ids: [offer.id] }), 404, 'NOT_FOUND');

    const ack = await post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [offer.id] });
    expect(ack.statusCode).toBe(200);
    expect(ack.json().acknowledged).toBe(1);
    expect(ack.json().items[0].reject_seen_at).toBeTruthy();
    const seenAt = ack.json().items[0].reject_seen_at;
    const again = await t.request('POST', groupApi('/transfer/reject-ack'), { token: w.sales.token, body: { transfer_ids: [offer.id] } });
    expect(again.json()).toMatchObject({ acknowledged: 0 });
    expect(again.json().items[0].reject_seen_at).toBe(seenAt);
    const left = (await get(t, '/transfer/pending-count', w.sales.token)).json().rejects as Array<{ id: number }>;
    expect(left.map((reject) => reject.id)).not.toContain(offer.id);
    expect(left.length).toBe(initiator.json().rejects.length - 1);

    // a PENDING transfer is not acknowledgeable
    const next = await transferOk(line.id, w.sales.token, w.sales2.id);
    await expectRefused(() => post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [next.id] }), 400, 'STATUS_NOT_ALLOWED');
    const noBody = await post(t, `/transfer/${next.id}/reject`, w.sales2.token);
    expect(noBody.json()).toMatchObject({ status: 'REJECTED', reason: null });
    await post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [next.id] });
    await post(t, `/${line.id}/return`, w.sales.token, { quantity: 2 });
  });

  it('pending-count is 0 and [] for a caller with nothing', async () => {
    const fresh = await t.user('SALES', 'ALPHA');
    const response = await get(t, '/transfer/pending-count', fresh.token);
    expect(response.statusCode).toBe(200);
    expect(response.json()).toEqual({ count: 0, rejects: [] });
    expect((await t.request('GET', '/api/v1/borrow/transfer/pending-count')).statusCode).toBe(401);
  });

  it('accept and reject refuse bad ids and bodies', async () => {
    await expectRefused(() => post(t, '/transfer/999999/accept', w.sales.token), 404, 'NOT_FOUND');
    await expectRefused(() => post(t, '/transfer/999999/reject', w.sales.token, {}), 404, 'NOT_FOUND');
    await expectRefused(() => post(t, '/transfer/abc/accept', w.sales.token), 400, 'VALIDATION_FAILED');
    const { line } = await borrowedLine(w, 1);
    const offer = await transferOk(line.id, w.sales.token, w.sales2.id);
    await expectRefused(() => post(t, `/transfer/${offer.id}/reject`, w.sales2.token, { reason: 42 }), 400, 'VALIDATION_FAILED');
    await expectRefused(() => post(t, `/transfer/${offer.id}/reject`, w.sales.token, {}), 403, 'NOT_RECEIVER');
    await post(t, `/transfer/${offer.id}/accept`, w.sales2.token);
    await post(t, `/${line.id}/return`, w.sales2.token, { quantity: 1 });
  });

  it('a decided transfer cannot be decided again: 400 STATUS_NOT_ALLOWED naming its state', async () => {
    const { line } = await borrowedLine(w, 1);
    const refused = await transferOk(line.id, w.sales.token, w.sales2.id);
    await post(t, `/transfer/${refused.id}/reject`, w.sales2.token, { reason: '不需要' });
    const acceptRejected = await expectRefused(() => post(t, `/transfer/${refused.id}/accept`, w.sales2.token), 400, 'STATUS_NOT_ALLOWED');
    expect(acceptRejected.json()).toMatchObject({ msg: '该转移已拒绝，不能接收', status: 'REJECTED' });
    expect(await storedLine(t, line.id)).toMatchObject({ current_holder_id: w.sales.id });

    const taken = await transferOk(line.id, w.sales.token, w.sales2.id);
    await post(t, `/transfer/${taken.id}/accept`, w.sales2.token);
    const rejectAccepted = await expectRefused(() => post(t, `/transfer/${taken.id}/reject`, w.sales2.token, {}), 400, 'STATUS_NOT_ALLOWED');
    expect(rejectAccepted.json()).toMatchObject({ msg: '该转移已接收，不能拒绝', status: 'ACCEPTED' });
    expect(await storedLine(t, line.id)).toMatchObject({ current_holder_id: w.sales2.id });
    await post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [refused.id] });
    await post(t, `/${line.id}/return`, w.sales2.token, { quantity: 1 });
  });
});

describe('splitting a line', () => {
  it('cuts part of what is out into a new line of the same slip, holder and row; stock and freeze unchanged', async () => {
    const { line, row } = await borrowedLine(w, 5, 10);
    await post(t, `/${line.id}/return`, w.sales.token, { quantity: 2 });
    const before = await rowState(t, row.id);

    const split = await post(t, `/${line.id}/split`, w.sales.token, { quantity: 2 });
    expect(split.statusCode).toBe(200);
    const lines = split.json() as LineJson[];
    expect(lines).toHaveLength(2);
    const [original, created] = lines as [LineJson, LineJson];
    expect(original).toMatchObject({ id: line.id, quantity: 3, returned_quantity: 2, pending_quantity: 1, status: 'borrowed', current_holder_id: w.sales.id });
    expect(created).toMatchObject({
      borrow_no: line.borrow_no,
      stock_id: line.stock_id,
      sku: line.sku,
      quantity: 2,
      returned_quantity: 0,
      pending_quantity: 2,
      borrower_id: w.sales.id,
      current_holder_id: w.sales.id,
      split_from_id: line.id,
      status: 'borrowed',
      can_transfer: true,
    });
    expect(created.borrowed_at).toBe(line.borrowed_at);
    expect(await rowState(t, row.id)).toEqual(before);

    // the split-off part can now be handed on alone
    const offer = await transferOk(created.id, w.sales.token, w.sales2.id);
    await post(t, `/transfer/${offer.id}/accept`, w.sales2.token);
    expect(await storedLine(t, created.id)).toMatchObject({ current_holder_id: w.sales2.id });
    expect(await storedLine(t, line.id)).toMatchObject({ current_holder_id: w.sales.id });
    await post(t, `/${created.id}/return`, w.sales2.token, { quantity: 2 });
    await post(t, `/${line.id}/return`, w.sales.token, { quantity: 1 });
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 10 });
  });

  it('only the holder splits, only less than what is out, never a returned line; bad input 400', async () => {
    const { line } = await borrowedLine(w, 3);
    await expectRefused(() => post(t, `/${line.id}/split`, w.sales2.token, { quantity: 1 }), 403, 'NOT_HOLDER');
    await expectRefused(() => post(t, `/${line.id}/split`, w.mgr.token, { quantity: 1 }), 403, 'NOT_HOLDER');
    await expectRefused(() => post(t, `/${line.id}/split`, w.sales.token, { quantity: 3 }), 400, 'QUANTITY_EXCEEDS');
    await expectRefused(() => post(t, `/${line.id}/split`, w.sales.token, { quantity: 4 }), 400, 'QUANTITY_EXCEEDS');
    for (const body of [{}, { quantity: 0 }, { quantity: -1 }, { quantity: '1' }]) {
      await expectRefused(() => post(t, `/${line.id}/split`, w.sales.token, body), 400, 'VALIDATION_FAILED');
    }
    await expectRefused(() => post(t, `/${line.id}/split`, w.betaSales.token, { quantity: 1 }), 404, 'NOT_FOUND');
    const grouped = await t.request('POST', groupApi(`/${line.id}/split`), { token: w.sales.token, body: { quantity: 0.5 } });
    expect(grouped.statusCode).toBe(200);
    expect(grouped.json()[1].quantity).toBe(0.5);
    await post(t, `/${line.id}/return`, w.sales.token, { quantity: 2.5 });
    await expectRefused(() => post(t, `/${line.id}/split`, w.sales.token, { quantity: 1 }), 400, 'STATUS_NOT_ALLOWED');
    await post(t, `/${grouped.json()[1].id}/return`, w.sales.token, { quantity: 0.5 });
  });
});

describe('return needs op_return:operation as well as holding the line', () => {
  afterAll(async () => {
    await t.request('PUT', '/api/v1/permissions/role/SALES', {
      token: w.admin,
      body: { permissions: ['outbound_selection', 'op_borrow_apply', 'op_return:operation'] },
    });
  });

  it('a holder without the code gets 403 and nothing changes; transfer needs no code', async () => {
    const { line, row } = await borrowedLine(w, 2, 4);
    await t.request('PUT', '/api/v1/permissions/role/SALES', { token: w.admin, body: { permissions: ['op_borrow_apply'] } });
    await expectRefused(() => post(t, `/${line.id}/return`, w.sales.token, { quantity: 1 }), 403, 'FORBIDDEN');
    expect(await rowState(t, row.id)).toMatchObject({ available: 2 });
    const offer = await transferOk(line.id, w.sales.token, w.inbound.id);
    await post(t, `/transfer/${offer.id}/accept`, w.inbound.token);
    await post(t, `/${line.id}/return`, w.inbound.token, { quantity: 2 });
  });
});
