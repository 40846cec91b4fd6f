import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { scrapFromLedger } from '../src/modules/defective/scrap-request-seam.js';
import { queryRows, type AuditRow } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { materialWithStock, rowState, useOutboundWorld, type OutboundWorld } from './outbound-fixtures.js';
import { returnOk, shipFromRow, type LedgerJson } from './returns-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

const restockPath = (id: number, group = '/inbound/stock') => `/api/v1${group}/defective/${id}/restock`;
const restock = (token: string, id: number, body: unknown, group?: string) => t.request('POST', restockPath(id, group), { token, body });

/** A ledger entry of `held` from a row of `stock` (ALPHA unless company is given), with the row after shipping. */
async function heldEntry(stock: number, held: number, world: { company?: 'ALPHA' | 'BETA' } = {}) {
  const { material, rows } = await materialWithStock(t, world.company ?? 'ALPHA', [stock]);
  const row = rows[0]!;
  const beta = world.company === 'BETA';
  const line = await shipFromRow(w, row, held, beta ? { applicant: w.betaSales, approver: w.betaMgr, executor: w.betaMgr } : {});
  const returner = beta ? w.betaMgr : w.mgr;
  const result = await returnOk(t, returner.token, { outbound_id: line.id, return_type: 'defective', quantity: held });
  return { material, row, entry: result.ledger_entry! };
}

async function storedEntry(id: number) {
  const [entry] = await queryRows<{ remaining_qty: string; status: string }>(
    t,
    sql`select remaining_qty::text, status from trans_defective_goods where id = ${id}`,
  );
  return entry;
}

describe('GET /stock/defective (ledger)', () => {
  it('pages the ledger of the caller’s company, with keyword and status filters, at both paths', async () => {
    const first = await heldEntry(10, 2);
    const second = await heldEntry(10, 3);
    await restock(w.mgr.token, second.entry.id, { quantity: 3 });

    for (const path of ['/api/v1/stock/defective', '/api/v1/inbound/stock/defective']) {
      const response = await t.request('GET', `${path}?keyword=${encodeURIComponent(first.row.sku)}`, { token: w.mgr.token });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual({ items: [first.entry], total: 1, page: 1, limit: 20 });
    }
    const byName = await t.request('GET', `/api/v1/stock/defective?keyword=${encodeURIComponent(second.material.name)}`, { token: w.mgr.token });
    expect(byName.json().items).toEqual([expect.objectContaining({ id: second.entry.id, status: '已退回库存', remaining_qty: 0 })]);

    const open = (await t.request('GET', '/api/v1/stock/defective?status=待处理&limit=200', { token: w.mgr.token })).json();
    expect(open.items.map((entry: LedgerJson) => entry.id)).toContain(first.entry.id);
    expect(open.items.every((entry: LedgerJson) => entry.status === '待处理')).toBe(true);
    const done = (await t.request('GET', `/api/v1/stock/defective?status=${encodeURIComponent('已退回库存')}`, { token: w.mgr.token })).json();
    expect(done.items.map((entry: LedgerJson) => entry.id)).toEqual([second.entry.id]);

    const paged = (await t.request('GET', '/api/v1/stock/defective?page=1&limit=1', { token: w.mgr.token })).json();
    expect(paged.items).toHaveLength(1);
    expect(paged.total).toBeGreaterThanOrEqual(2);
  });

  it('isolates companies: another company sees none of it; cross-domain may name one', async () => {
    const alpha = await heldEntry(4, 1);
    const beta = await heldEntry(4, 1, { company: 'BETA' });
    const betaList = (await t.request('GET', '/api/v1/stock/defective?limit=200', { token: w.betaMgr.token })).json();
    expect(betaList.items.map((entry: LedgerJson) => [entry.company_name, entry.company])).toEqual(betaList.items.map(() => ['BETA', 'BETA']));
    expect(betaList.items.map((entry: LedgerJson) => entry.id)).toContain(beta.entry.id);
    const alphaAsking = (await t.request('GET', '/api/v1/stock/defective?company=BETA&limit=200', { token: w.mgr.token })).json();
    expect(alphaAsking.items.map((entry: LedgerJson) => entry.id)).toContain(alpha.entry.id);
    expect(alphaAsking.items.map((entry: LedgerJson) => entry.id)).not.toContain(beta.entry.id);
    const admin = (await t.request('GET', '/api/v1/stock/defective?company=BETA&limit=200', { token: t.adminToken })).json();
    expect(admin.items.every((entry: LedgerJson) => entry.company_name === 'BETA')).toBe(true);
  });

  it('takes start_date and end_date on the entry’s time (contract §8 list parameters), each alone', async () => {
    const { entry } = await heldEntry(4, 1);
    const beijingDay = (offsetDays: number) => new Date(Date.now() + 8 * 3600e3 + offsetDays * 86400e3).toISOString().slice(0, 10);
    const ids = async (query: string) =>
      ((await t.request('GET', `/api/v1/stock/defective?limit=200${query}`, { token: w.mgr.token })).json().items as LedgerJson[]).map((e) => e.id);
    const today = beijingDay(0);
    expect(await ids(`&start_date=${today}&end_date=${today}`)).toContain(entry.id);
    expect(await ids(`&start_date=${beijingDay(1)}`)).not.toContain(entry.id);
    expect(await ids(`&end_date=${beijingDay(-1)}`)).not.toContain(entry.id);
    const after = encodeURIComponent(new Date(Date.parse(entry.created_at as string) + 1000).toISOString());
    expect(await ids(`&start_date=${after}`)).not.toContain(entry.id);
    expect(await ids(`&end_date=${encodeURIComponent(entry.created_at as string)}`)).toContain(entry.id);
  });

  it('needs defective_list (403) and refuses bad queries (400)', async () => {
    for (const user of [w.sales, w.op, w.inbound]) {
      expect((await t.request('GET', '/api/v1/stock/defective', { token: user.token })).statusCode).toBe(403);
    }
    for (const query of ['?status=丢失', '?page=0', '?limit=0', '?start_date=2024-02-30', '?end_date=yesterday']) {
      const response = await t.request('GET', `/api/v1/stock/defective${query}`, { token: w.mgr.token });
      expect(response.statusCode, query).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
  });
});

describe('POST /inbound/stock/defective/:id/restock', () => {
  it('restocks part, then the rest: the original row grows, remaining falls, 已退回库存 at 0', async () => {
    const { row, entry } = await heldEntry(10, 4);
    expect(await rowState(t, row.id)).toEqual({ stock: 6, available: 6, status: '在库' });

    const partial = await restock(w.mgr.token, entry.id, { quantity: 1.5 });
    expect(partial.statusCode).toBe(200);
    expect(partial.json()).toMatchObject({ id: entry.id, quantity: 4, remaining_qty: 2.5, status: '待处理' });
    expect(await rowState(t, row.id)).toEqual({ stock: 7.5, available: 7.5, status: '在库' });

    const over = await restock(w.mgr.token, entry.id, { quantity: 3 });
    expect(over.statusCode).toBe(400);
    expect(over.json()).toMatchObject({ code: 'QUANTITY_EXCEEDS', remaining_qty: 2.5 });
    expect(await storedEntry(entry.id)).toEqual({ remaining_qty: '2.5', status: '待处理' });

    const rest = await restock(w.mgr.token, entry.id, { quantity: 2.5 }, '/stock');
    expect(rest.statusCode).toBe(200);
    expect(rest.json()).toMatchObject({ remaining_qty: 0, status: '已退回库存' });
    expect(await rowState(t, row.id)).toEqual({ stock: 10, available: 10, status: '在库' });

    const again = await restock(w.mgr.token, entry.id, { quantity: 1 });
    expect(again.statusCode).toBe(400);
    expect(again.json().code).toBe('STATUS_NOT_ALLOWED');
    expect(await rowState(t, row.id)).toEqual({ stock: 10, available: 10, status: '在库' });
  });

  it('is refused with 400 NOT_IN_STOCK when the original row is not 在库 or is gone, writing nothing', async () => {
    const frozen = await heldEntry(5, 2);
    await t.request('POST', `/api/v1/inbound/stock/${frozen.row.id}/change-status`, { token: w.mgr.token, body: { status: '不良品' } });
    const refused = await restock(w.mgr.token, frozen.entry.id, { quantity: 1 });
    expect(refused.statusCode).toBe(400);
    expect(refused.json()).toMatchObject({ code: 'NOT_IN_STOCK', status: '不良品' });
    expect(await storedEntry(frozen.entry.id)).toEqual({ remaining_qty: '2', status: '待处理' });
    expect(await rowState(t, frozen.row.id)).toEqual({ stock: 3, available: 3, status: '不良品' });

    const gone = await heldEntry(5, 5);
    expect((await t.request('DELETE', `/api/v1/inbound/stock/${gone.row.id}`, { token: w.mgr.token })).statusCode).toBe(200);
    const missing = await restock(w.mgr.token, gone.entry.id, { quantity: 1 });
    expect(missing.statusCode).toBe(400);
    expect(missing.json()).toMatchObject({ code: 'NOT_IN_STOCK', stock_id: gone.row.id });
    expect(await storedEntry(gone.entry.id)).toEqual({ remaining_qty: '5', status: '待处理' });
  });

  it('answers 404 for another company’s entry and an unknown one; needs defective_restock (403)', async () => {
    const { row, entry } = await heldEntry(5, 2);
    expect((await restock(w.betaMgr.token, entry.id, { quantity: 1 })).statusCode).toBe(404);
    expect((await restock(w.mgr.token, 99999999, { quantity: 1 })).statusCode).toBe(404);
    for (const user of [w.op, w.sales, w.inbound]) {
      const response = await restock(user.token, entry.id, { quantity: 1 });
      expect(response.statusCode).toBe(403);
    }
    expect(await storedEntry(entry.id)).toEqual({ remaining_qty: '2', status: '待处理' });
    expect(await rowState(t, row.id)).toEqual({ stock: 3, available: 3, status: '在库' });
  });

  it('refuses malformed and invalid bodies with 400 and writes nothing', async () => {
    const { row, entry } = await heldEntry(5, 2);
    for (const body of [{}, { quantity: 0 }, { quantity: -1 }, { quantity: '1' }, { quantity: null }]) {
      const response = await restock(w.mgr.token, entry.id, body);
      expect(response.statusCode, JSON.stringify(body)).toBe(400);
      expect(response.json().code).toBe('VALIDATION_FAILED');
    }
    const malformed = await t.request('POST', restockPath(entry.id), {
      token: w.mgr.token,
      body: '{"quantity":',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    expect((await t.request('POST', '/api/v1/inbound/stock/defective/abc/restock', { token: w.mgr.token, body: { quantity: 1 } })).statusCode).toBe(400);
    expect(await storedEntry(entry.id)).toEqual({ remaining_qty: '2', status: '待处理' });
    expect(await rowState(t, row.id)).toEqual({ stock: 3, available: 3, status: '在库' });
  });

  it('audits the ledger change under 不良品管理 with the request URL', async () => {
    const { entry } = await heldEntry(5, 2);
    await restock(w.mgr.token, entry.id, { quantity: 2 });
    const audits = await queryRows<AuditRow>(
      t,
      sql`select module, action, target_id, target_name, username, company_name, request_url, details
            from audit_logs where table_name = 'trans_defective_goods' and target_id = ${String(entry.id)} order by id`,
    );
    expect(audits.map((audit) => audit.action)).toEqual(['CREATE', 'UPDATE']);
    expect(audits[1]).toMatchObject({
      module: '不良品管理',
      target_name: entry.sku,
      username: w.mgr.username,
      company_name: 'ALPHA',
      request_url: restockPath(entry.id),
    });
    const changes = (audits[1]!.details as { changes: Array<{ field: string; old: unknown; new: unknown }> }).changes;
    expect(changes).toEqual(
      expect.arrayContaining([
        { field: 'remaining_qty', old: 2, new: 0 },
        { field: 'status', old: '待处理', new: '已退回库存' },
      ]),
    );
  });
});

describe('scrap seam of the ledger', () => {
  it('takes scrapped quantity off remaining_qty and marks 已报废 at 0; the database keeps the status honest', async () => {
    const { entry } = await heldEntry(6, 3);
    await restock(w.mgr.token, entry.id, { quantity: 1 });
    const { database } = t.service.deps;
    const scrap = (quantity: string) =>
      database.transaction({ actor: 'test' }, (tx) => scrapFromLedger(tx, 'ALPHA', entry.id, quantity, new Date()));

    await expect(scrap('3')).rejects.toMatchObject({ code: 'QUANTITY_EXCEEDS' });
    await expect(database.transaction({ actor: 'test' }, (tx) => scrapFromLedger(tx, 'BETA', entry.id, '1', new Date()))).rejects.toMatchObject({
      code: 'NOT_FOUND',
    });
    expect((await scrap('0.5')).status).toBe('待处理');
    const last = await scrap('1.5');
    expect(last.status).toBe('已报废');
    expect(Number(last.remainingQty)).toBe(0);
    await expect(scrap('0.1')).rejects.toMatchObject({ code: 'STATUS_NOT_ALLOWED' });

    await expect(
      database.transaction({ actor: 'test' }, (tx) => tx.execute(sql`update trans_defective_goods set status = '待处理' where id = ${entry.id}`)),
    ).rejects.toThrow();
    await expect(
      database.transaction({ actor: 'test' }, (tx) => tx.execute(sql`update trans_defective_goods set remaining_qty = 4 where id = ${entry.id}`)),
    ).rejects.toThrow();
  });
});
