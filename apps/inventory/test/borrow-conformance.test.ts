import { describe, expect, it } from 'vitest';
import type { TestInventory, TestUser } from './helpers.js';
import { borrowedLine, get, post, rowState, storedLine, useBorrowWorld, type BorrowWorld, type LineJson, type TransferJson } from './borrow-fixtures.js';

let t: TestInventory;
let w: BorrowWorld;

useBorrowWorld((built) => ({ t, w } = built), { checkLedger: true });

const AUTO_CANCELLED = '接收人已停用，转移自动取消';

async function offerTo(lineId: number, token: string, receiver: TestUser): Promise<TransferJson> {
  const response = await post(t, `/${lineId}/transfer`, token, { to_user_id: receiver.id });
  expect(response.statusCode, response.body).toBe(201);
  return response.json() as TransferJson;
}

async function patchUser(user: TestUser, body: Record<string, unknown>) {
  const response = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: w.admin, body });
  expect(response.statusCode, response.body).toBe(200);
}

/** A line held by sales with a PENDING transfer to a colleague who is then deactivated (or moved away). */
async function lineOfferedToALeaver(quantity = 4, leave: Record<string, unknown> = { active: false }) {
  const borrowed = await borrowedLine(w, quantity, 10);
  const leaver = await t.user('SALES', 'ALPHA', { name: '离职员工' });
  const offer = await offerTo(borrowed.line.id, w.sales.token, leaver);
  await patchUser(leaver, leave);
  return { ...borrowed, leaver, offer };
}

async function transferRow(id: number, initiator: TestUser) {
  const rejects = (await get(t, '/transfer/pending-count', initiator.token)).json().rejects as Array<Record<string, unknown>>;
  return rejects.find((reject) => reject.id === id);
}

async function recordsLine(lineId: number, token: string): Promise<LineJson | undefined> {
  const page = (await get(t, '/records?limit=200', token)).json() as { items: Array<{ lines: LineJson[] }> };
  return page.items.flatMap((slip) => slip.lines).find((line) => line.id === lineId);
}

describe('a PENDING transfer whose receiver can no longer decide it does not block the line', () => {
  it('the holder returns: the transfer closes as REJECTED, the initiator is told, the return goes through', async () => {
    const { line, row, offer } = await lineOfferedToALeaver(4);
    const returned = await post(t, `/${line.id}/return`, w.sales.token, { quantity: 4 });
    expect(returned.statusCode, returned.body).toBe(200);
    expect(returned.json()).toMatchObject({ status: 'returned', pending_transfer: null });
    expect(await rowState(t, row.id)).toMatchObject({ stock: 10, available: 10 });

    expect(await transferRow(offer.id, w.sales)).toMatchObject({ id: offer.id, reason: AUTO_CANCELLED, borrow_id: line.id });
    const ack = await post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [offer.id] });
    expect(ack.json().items[0]).toMatchObject({ status: 'REJECTED', reason: AUTO_CANCELLED });
    expect(ack.json().items[0].decided_at).toBeTruthy();
  });

  it('the holder splits, or offers the line to someone else', async () => {
    const { line, offer } = await lineOfferedToALeaver(4);
    const split = await post(t, `/${line.id}/split`, w.sales.token, { quantity: 1 });
    expect(split.statusCode, split.body).toBe(200);
    expect(await transferRow(offer.id, w.sales)).toMatchObject({ reason: AUTO_CANCELLED });

    const second = await lineOfferedToALeaver(2);
    const next = await offerTo(second.line.id, w.sales.token, w.sales2);
    expect(next).toMatchObject({ status: 'PENDING', to_user_id: w.sales2.id });
    expect(await transferRow(second.offer.id, w.sales)).toMatchObject({ reason: AUTO_CANCELLED });
    await post(t, `/transfer/${next.id}/accept`, w.sales2.token);
    await post(t, `/${second.line.id}/return`, w.sales2.token, { quantity: 2 });
    for (const [id, quantity] of [[line.id, 3], [(split.json() as LineJson[])[1]!.id, 1]] as const) {
      await post(t, `/${id}/return`, w.sales.token, { quantity });
    }
    await post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [offer.id, second.offer.id] });
  });

  it('a receiver moved to another company cannot decide it either', async () => {
    const { line, offer } = await lineOfferedToALeaver(2, { company_name: 'BETA' });
    const returned = await post(t, `/${line.id}/return`, w.sales.token, { quantity: 2 });
    expect(returned.statusCode, returned.body).toBe(200);
    expect(await transferRow(offer.id, w.sales)).toMatchObject({ reason: AUTO_CANCELLED });
    await post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [offer.id] });
  });

  it('the records listing no longer shows it as waiting: the holder may hand the line on', async () => {
    const { line } = await lineOfferedToALeaver(2);
    expect(await recordsLine(line.id, w.sales.token)).toMatchObject({ is_mine: true, can_transfer: true, pending_transfer: null });
    expect(await storedLine(t, line.id)).toMatchObject({ current_holder_id: w.sales.id });
    await post(t, `/${line.id}/return`, w.sales.token, { quantity: 2 });
  });

  it('an active receiver still blocks, and the history names the automatic cancellation', async () => {
    const { line, offer } = await lineOfferedToALeaver(2);
    const live = await offerTo((await borrowedLine(w, 1)).line.id, w.sales.token, w.sales2);
    const blocked = await post(t, `/${live.borrow_id}/return`, w.sales.token, { quantity: 1 });
    expect(blocked.statusCode).toBe(400);
    expect(blocked.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', transfer_id: live.id });
    await post(t, `/transfer/${live.id}/reject`, w.sales2.token, {});
    await post(t, `/${live.borrow_id}/return`, w.sales.token, { quantity: 1 });

    await post(t, `/${line.id}/return`, w.sales.token, { quantity: 2 });
    const history = (await get(t, `/${line.id}/history`, w.mgr.token)).json() as Array<Record<string, unknown>>;
    expect(history.map((event) => event.event)).toEqual(['dispatch', 'transfer_initiated', 'transfer_rejected', 'return']);
    expect(history[2]).toMatchObject({ reason: AUTO_CANCELLED, actor_id: null, actor_name: '系统', transfer_id: offer.id });
    await post(t, '/transfer/reject-ack', w.sales.token, { transfer_ids: [offer.id, live.id] });
  });
});

describe('the borrower\'s name comes from the user table (spec 2.6)', () => {
  it('a renamed borrower shows and is found under the current name in the records', async () => {
    const borrower = await t.user('SALES', 'ALPHA', { name: '借用人旧名' });
    const { line } = await borrowedLine(w, 1, 5, borrower);
    await patchUser(borrower, { name: '借用人新名' });
    const page = (await get(t, '/records?keyword=借用人新名', w.mgr.token)).json() as { items: Array<{ borrower_name: string; lines: LineJson[] }> };
    expect(page.items).toHaveLength(1);
    expect(page.items[0]!.borrower_name).toBe('借用人新名');
    expect(page.items[0]!.lines[0]).toMatchObject({ id: line.id, borrower_name: '借用人新名', current_holder_name: '借用人新名' });
    await post(t, `/${line.id}/return`, borrower.token, { quantity: 1 });
  });

  it('status=all lists every slip, like no status', async () => {
    const all = await get(t, '/records?status=all&limit=200', w.mgr.token);
    expect(all.statusCode, all.body).toBe(200);
    expect(all.json().total).toBe((await get(t, '/records?limit=200', w.mgr.token)).json().total);
  });
});
