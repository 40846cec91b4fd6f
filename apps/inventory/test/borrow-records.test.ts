import { beforeAll, describe, expect, it } from 'vitest';
import type { UseCaseContext } from '@wms/platform';
import { listBorrowRecords } from '../src/modules/borrow/records-service.js';
import type { TestInventory, TestUser } from './helpers.js';
import {
  api,
  approvedBorrow,
  dispatchOk,
  get,
  groupApi,
  materialWithStock,
  post,
  useBorrowWorld,
  type BorrowWorld,
  type LineJson,
} from './borrow-fixtures.js';

let t: TestInventory;
let w: BorrowWorld;

interface SlipJson {
  borrow_no: string;
  status: string;
  borrower_id: number;
  borrower_name: string;
  total_quantity: number;
  returned_quantity: number;
  lines: LineJson[];
}

interface EventJson {
  event: string;
  at: string;
  borrow_id: number;
  actor_id: number | null;
  actor_name: string | null;
  quantity: number;
  from_user_id: number | null;
  to_user_id: number | null;
  split_borrow_id: number | null;
  reason: string | null;
  [field: string]: unknown;
}

async function slipOf(borrower: TestUser, quantities: number[]) {
  const { material, rows } = await materialWithStock(t, 'ALPHA', quantities.map((q) => q + 5));
  const request = await approvedBorrow(w, [{ base_id: material.id, quantity: quantities.reduce((a, b) => a + b, 0) }]);
  const slip = await dispatchOk(t, w.mgr.token, {
    request_id: request.id,
    borrower_id: borrower.id,
    lines: rows.map((row, i) => ({ barcode: row.sku, quantity: quantities[i]! })),
  });
  return { material, rows, slip };
}

async function listAs(token: string, query = '') {
  const response = await t.request('GET', api(`/records?limit=200${query}`), { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { items: SlipJson[]; total: number; page: number; limit: number };
}

const numbersOf = (page: { items: SlipJson[] }) => page.items.map((slip) => slip.borrow_no);

let s1: Awaited<ReturnType<typeof slipOf>>;
let s2: Awaited<ReturnType<typeof slipOf>>;
let s3: Awaited<ReturnType<typeof slipOf>>;
let s4: Awaited<ReturnType<typeof slipOf>>;
let pendingTransferId: number;

useBorrowWorld((built) => ({ t, w } = built), { checkLedger: true });

beforeAll(async () => {
  // S1: borrowed by sales, two lines; the second handed to inbound.
  s1 = await slipOf(w.sales, [2, 3]);
  const handOver = await post(t, `/${s1.slip.lines[1]!.id}/transfer`, w.sales.token, { to_user_id: w.inbound.id });
  await post(t, `/transfer/${handOver.json().id}/accept`, w.inbound.token);
  // S2: borrowed by sales2, offered to sales (PENDING).
  s2 = await slipOf(w.sales2, [1]);
  pendingTransferId = (await post(t, `/${s2.slip.lines[0]!.id}/transfer`, w.sales2.token, { to_user_id: w.sales.id })).json().id;
  // S3: borrowed by the manager; nothing to do with sales.
  s3 = await slipOf(w.mgr, [1]);
  // S4: borrowed by sales and fully returned.
  s4 = await slipOf(w.sales, [2]);
  await post(t, `/${s4.slip.lines[0]!.id}/return`, w.sales.token, { quantity: 2 });
});

describe('GET /borrow/records', () => {
  it('an ordinary user sees the slips they borrowed, hold a line of, or are offered', async () => {
    expect(numbersOf(await listAs(w.sales.token)).sort()).toEqual([s1.slip.borrow_no, s2.slip.borrow_no, s4.slip.borrow_no].sort());
    expect(numbersOf(await listAs(w.inbound.token))).toEqual([s1.slip.borrow_no]);
    expect(numbersOf(await listAs(w.sales2.token))).toEqual([s2.slip.borrow_no]);
    const stranger = await t.user('SALES', 'ALPHA');
    expect(await listAs(stranger.token)).toMatchObject({ items: [], total: 0 });
  });

  it('approvers, dispatchers and cross-domain callers see every slip of their scope', async () => {
    const all = [s1, s2, s3, s4].map((s) => s.slip.borrow_no).sort();
    for (const token of [w.mgr.token, w.op.token, w.admin]) expect(numbersOf(await listAs(token)).sort()).toEqual(all);
    expect(await listAs(w.betaMgr.token)).toMatchObject({ items: [], total: 0 });
    expect(numbersOf(await listAs(w.admin, '&company=BETA'))).toEqual([]);
    expect(numbersOf(await listAs(w.admin, '&company=ALPHA')).sort()).toEqual(all);
  });

  it('each slip carries all its lines with the caller\'s flags', async () => {
    const page = await listAs(w.sales.token);
    const first = page.items.find((slip) => slip.borrow_no === s1.slip.borrow_no)!;
    expect(first).toMatchObject({ status: 'borrowed', borrower_id: w.sales.id, borrower_name: '销售甲', total_quantity: 5, returned_quantity: 0 });
    const [mine, handed] = first.lines;
    expect(mine).toMatchObject({ id: s1.slip.lines[0]!.id, current_holder_id: w.sales.id, is_mine: true, can_transfer: true, pending_transfer: null });
    expect(handed).toMatchObject({ id: s1.slip.lines[1]!.id, current_holder_id: w.inbound.id, current_holder_name: '入库员', is_mine: false, can_transfer: false });

    const offered = page.items.find((slip) => slip.borrow_no === s2.slip.borrow_no)!;
    expect(offered.lines[0]).toMatchObject({ is_mine: false, can_transfer: false });
    expect(offered.lines[0]!.pending_transfer).toMatchObject({ id: pendingTransferId, status: 'PENDING', to_user_id: w.sales.id, from_user_id: w.sales2.id });

    const asHolder = (await listAs(w.sales2.token)).items[0]!;
    expect(asHolder.lines[0]).toMatchObject({ is_mine: true, can_transfer: false });
    expect(asHolder.lines[0]!.pending_transfer).toMatchObject({ id: pendingTransferId });

    const returned = page.items.find((slip) => slip.borrow_no === s4.slip.borrow_no)!;
    expect(returned).toMatchObject({ status: 'returned', returned_quantity: 2 });
    expect(returned.lines[0]).toMatchObject({ status: 'returned', is_mine: false, can_transfer: false, current_holder_id: null });
  });

  it('filters by slip status aggregated over its lines', async () => {
    // S1 gets one line back: still borrowed as a slip.
    await post(t, `/${s1.slip.lines[0]!.id}/return`, w.sales.token, { quantity: 2 });
    const borrowed = numbersOf(await listAs(w.mgr.token, '&status=borrowed')).sort();
    expect(borrowed).toEqual([s1.slip.borrow_no, s2.slip.borrow_no, s3.slip.borrow_no].sort());
    expect(numbersOf(await listAs(w.mgr.token, '&status=returned'))).toEqual([s4.slip.borrow_no]);
    expect(numbersOf(await listAs(w.mgr.token, '&status=scrapped'))).toEqual([]);
    expect(numbersOf(await listAs(w.sales.token, '&status=returned'))).toEqual([s4.slip.borrow_no]);
    const bad = await t.request('GET', api('/records?status=lost'), { token: w.mgr.token });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('VALIDATION_FAILED');
  });

  it('finds slips by slip number, material, sku or borrower, with all their lines', async () => {
    expect(numbersOf(await listAs(w.mgr.token, `&keyword=${s3.slip.borrow_no}`))).toEqual([s3.slip.borrow_no]);
    expect(numbersOf(await listAs(w.mgr.token, `&keyword=${encodeURIComponent(s2.material.name)}`))).toEqual([s2.slip.borrow_no]);
    const bySku = await listAs(w.mgr.token, `&keyword=${s1.rows[1]!.sku}`);
    expect(numbersOf(bySku)).toEqual([s1.slip.borrow_no]);
    expect(bySku.items[0]!.lines).toHaveLength(2);
    expect(numbersOf(await listAs(w.mgr.token, `&keyword=${encodeURIComponent('销售乙')}`))).toEqual([s2.slip.borrow_no]);
    expect(numbersOf(await listAs(w.mgr.token, '&keyword=%25'))).toEqual([]);
  });

  it('pages by slip, newest first, and is served under /transactions/borrow/records too', async () => {
    const first = await t.request('GET', api('/records?limit=1&page=1'), { token: w.mgr.token });
    expect(first.json()).toMatchObject({ total: 4, page: 1, limit: 1 });
    expect(first.json().items[0].borrow_no).toBe(s4.slip.borrow_no);
    const second = await t.request('GET', groupApi('/records?limit=1&page=4'), { token: w.mgr.token });
    expect(second.json().items[0].borrow_no).toBe(s1.slip.borrow_no);
    expect(second.json().items[0].lines).toHaveLength(2);
    expect((await t.request('GET', api('/records?limit=0'), { token: w.mgr.token })).statusCode).toBe(400);
    expect((await t.request('GET', api('/records?start_date=2024-13-01'), { token: w.mgr.token })).statusCode).toBe(400);
    const today = new Date(Date.now() + 8 * 3600e3).toISOString().slice(0, 10);
    expect((await listAs(w.mgr.token, `&start_date=${today}&end_date=${today}`)).total).toBe(4);
    expect((await listAs(w.mgr.token, '&end_date=2000-01-01')).total).toBe(0);
  });

  it('an unexpected failure answers 500 with the error\'s message and no trace (contract §2 Deviation)', async () => {
    const ctx = {
      actor: { id: w.mgr.id, username: w.mgr.username, name: 'x', role: 'WAREHOUSE_MGR', company: 'ALPHA', grants: new Set(['op_borrow_approval']) },
      scope: () => ({ kind: 'one', company: 'ALPHA' }),
      read: () => Promise.reject(new Error('relation "trans_borrow" is unavailable')),
    } as unknown as UseCaseContext;
    const failure = await listBorrowRecords(ctx, {}).catch((err: unknown) => err);
    expect(failure).toMatchObject({ status: 500, code: 'INTERNAL' });
    expect((failure as Error).message).toContain('relation "trans_borrow" is unavailable');
    expect((failure as { toBody(): object }).toBody()).not.toHaveProperty('stack');
  });
});

describe('history', () => {
  it('one line: dispatch, transfers offered, rejected and accepted, returns and splits, each with time, actor and quantity', async () => {
    const { slip } = await slipOf(w.sales, [5]);
    const line = slip.lines[0]!;
    const first = (await post(t, `/${line.id}/transfer`, w.sales.token, { to_user_id: w.sales2.id })).json();
    await post(t, `/transfer/${first.id}/reject`, w.sales2.token, { reason: '没空' });
    const second = (await post(t, `/${line.id}/transfer`, w.sales.token, { to_user_id: w.inbound.id })).json();
    await post(t, `/transfer/${second.id}/accept`, w.inbound.token);
    await post(t, `/${line.id}/return`, w.inbound.token, { quantity: 1, location: 'B/02', remark: '先还 1' });
    const split = (await post(t, `/${line.id}/split`, w.inbound.token, { quantity: 2 })).json();
    const child = split[1] as LineJson;
    await post(t, `/${line.id}/return`, w.inbound.token, { quantity: 2 });
    await post(t, `/${child.id}/return`, w.inbound.token, { quantity: 2 });

    const history = await get(t, `/${line.id}/history`, w.mgr.token);
    expect(history.statusCode).toBe(200);
    const events = history.json() as EventJson[];
    expect(events.map((event) => event.event)).toEqual([
      'dispatch',
      'transfer_initiated',
      'transfer_rejected',
      'transfer_initiated',
      'transfer_accepted',
      'return',
      'split',
      'return',
    ]);
    expect(events[0]).toMatchObject({ actor_id: w.mgr.id, actor_name: '仓管甲', quantity: 5, to_user_id: w.sales.id, borrow_id: line.id, label: '借出' });
    expect(events[1]).toMatchObject({ actor_id: w.sales.id, from_user_id: w.sales.id, to_user_id: w.sales2.id, quantity: 5 });
    expect(events[2]).toMatchObject({ actor_id: w.sales2.id, reason: '没空' });
    expect(events[4]).toMatchObject({ actor_id: w.inbound.id, actor_name: '入库员' });
    expect(events[5]).toMatchObject({ actor_id: w.inbound.id, quantity: 1, location: 'B/02', remark: '先还 1' });
    expect(events[6]).toMatchObject({ actor_id: w.inbound.id, quantity: 2, split_borrow_id: child.id });
    const times = events.map((event) => Date.parse(event.at));
    expect([...times].sort((a, b) => a - b)).toEqual(times);

    // The split-off line continues the parent's history up to the split, then its own.
    const childHistory = (await t.request('GET', groupApi(`/${child.id}/history`), { token: w.inbound.token })).json() as EventJson[];
    expect(childHistory.map((event) => event.event)).toEqual([
      'dispatch',
      'transfer_initiated',
      'transfer_rejected',
      'transfer_initiated',
      'transfer_accepted',
      'return',
      'split',
      'return',
    ]);
    expect(childHistory.at(-1)).toMatchObject({ borrow_id: child.id, quantity: 2 });
    expect(childHistory.at(-2)).toMatchObject({ borrow_id: line.id, split_borrow_id: child.id });

    // The slip: every line's own events in one answer, by real timestamp.
    const slipHistory = (await get(t, `/slip/${slip.borrow_no}/history`, w.mgr.token)).json() as EventJson[];
    expect(slipHistory.map((event) => [event.event, event.borrow_id])).toEqual([
      ['dispatch', line.id],
      ['transfer_initiated', line.id],
      ['transfer_rejected', line.id],
      ['transfer_initiated', line.id],
      ['transfer_accepted', line.id],
      ['return', line.id],
      ['split', line.id],
      ['return', line.id],
      ['return', child.id],
    ]);
  });

  it('a slip of several lines answers all of them in one call, in time order', async () => {
    const { slip } = await slipOf(w.sales, [1, 2]);
    const [a, b] = slip.lines as [LineJson, LineJson];
    await post(t, `/${b.id}/return`, w.sales.token, { quantity: 1 });
    await post(t, `/${a.id}/return`, w.sales.token, { quantity: 1 });
    await post(t, `/${b.id}/return`, w.sales.token, { quantity: 1 });
    const events = (await t.request('GET', groupApi(`/slip/${slip.borrow_no}/history`), { token: w.sales.token })).json() as EventJson[];
    expect(events.map((event) => [event.event, event.borrow_id])).toEqual([
      ['dispatch', a.id],
      ['dispatch', b.id],
      ['return', b.id],
      ['return', a.id],
      ['return', b.id],
    ]);
  });

  it('history is company-scoped: unknown or another company\'s line or slip is 404', async () => {
    const line = s3.slip.lines[0]!;
    expect((await get(t, `/${line.id}/history`, w.betaMgr.token)).statusCode).toBe(404);
    expect((await get(t, `/slip/${s3.slip.borrow_no}/history`, w.betaMgr.token)).statusCode).toBe(404);
    expect((await get(t, '/999999/history', w.mgr.token)).statusCode).toBe(404);
    expect((await get(t, '/slip/JY-NOPE/history', w.mgr.token)).statusCode).toBe(404);
    expect((await get(t, '/abc/history', w.mgr.token)).statusCode).toBe(400);
  });
});
