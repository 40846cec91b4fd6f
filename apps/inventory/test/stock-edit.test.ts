import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reconcileAndLog } from '../src/modules/stock/ledger-reconcile.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import {
  createMaterial,
  holdQuantityDirectly,
  queryRows,
  stockAuditRecords,
  stockIn,
  type MaterialJson,
  type StockRowJson,
} from './fixtures.js';

const STOCK = '/api/v1/inbound/stock';

describe('stock rows: update, delete, change-status', () => {
  let t: TestInventory;
  let inbound: TestUser;
  let manager: TestUser;
  let sales: TestUser;
  let betaManager: TestUser;
  let material: MaterialJson;

  const read = async (id: number) => (await t.request('GET', `${STOCK}/${id}`, { token: manager.token })).json() as StockRowJson;
  const newRow = (body: Record<string, unknown> = {}) => stockIn(t, manager.token, { base_id: material.id, in_quantity: 10, ...body });

  beforeAll(async () => {
    t = await buildTestInventory();
    [inbound, manager, sales, betaManager] = await Promise.all([
      t.user('INBOUND', 'ALPHA'),
      t.user('WAREHOUSE_MGR', 'ALPHA'),
      t.user('SALES', 'ALPHA'),
      t.user('WAREHOUSE_MGR', 'BETA'),
    ]);
    material = await createMaterial(t, manager.token, { name: '编辑测试物料' });
  });
  afterAll(() => t.close());

  describe('PUT /inbound/stock/:id', () => {
    it('moves available by the same difference as the physical quantity', async () => {
      const row = await newRow();
      await holdQuantityDirectly(t, row.id, 4); // stock 10, available 6
      const raised = await t.request('PUT', `${STOCK}/${row.id}`, { token: inbound.token, body: { stock_quantity: 12.5 } });
      expect(raised.statusCode).toBe(200);
      expect(raised.json()).toMatchObject({ stock_quantity: 12.5, available_quantity: 8.5, in_quantity: 10 });
      const lowered = await t.request('PUT', `/api/v1/stock/${row.id}`, { token: inbound.token, body: { stock_quantity: 4 } });
      expect(lowered.json()).toMatchObject({ stock_quantity: 4, available_quantity: 0 });
    });

    it('refuses to cut below the reserved quantity with 400 QUANTITY_BELOW_RESERVED and writes nothing', async () => {
      const row = await newRow();
      await holdQuantityDirectly(t, row.id, 7); // stock 10, available 3, held 7
      const response = await t.request('PUT', `${STOCK}/${row.id}`, { token: inbound.token, body: { stock_quantity: 6.5, remark: '盘亏' } });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'QUANTITY_BELOW_RESERVED', reserved: 7, available_quantity: 3 });
      expect(response.json().msg).toContain('7');
      expect(await read(row.id)).toMatchObject({ stock_quantity: 10, available_quantity: 3, remark: null });
      expect((await stockAuditRecords(t, row.id)).filter((record) => record.username === inbound.username)).toHaveLength(0);
    });

    it('updates descriptive fields, normalises the location and records the change in the audit log', async () => {
      const row = await newRow({ batch_number: 'OLD' });
      const response = await t.request('PUT', `${STOCK}/${row.id}`, {
        token: manager.token,
        body: {
          warehouse_location: ' C / 07 ', batch_number: 'NEW', in_date: '2025-01-02', production_date: '2024-12-30',
          unit_cost: 3.5, remark: '调整', status: '冻结', in_quantity: 99, source_table: 'stock_buy',
        },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({
        warehouse_location: 'C/07', batch_number: 'NEW', in_date: '2025-01-02', production_date: '2024-12-30',
        unit_cost: 3.5, remark: '调整', status: '在库', in_quantity: 10, stock_quantity: 10,
      });
      const records = await stockAuditRecords(t, row.id);
      const update = records.at(-1)!;
      expect(update).toMatchObject({ module: '库存管理', action: 'UPDATE', username: manager.username, request_url: `${STOCK}/${row.id}` });
      const fields = (update.details.changes as Array<{ field: string }>).map((change) => change.field);
      expect(fields).toEqual(expect.arrayContaining(['warehouse_location', 'batch_number', 'remark', 'unit_cost']));
      expect(fields).not.toContain('status');
    });

    it('writes nothing when the values are already stored', async () => {
      const row = await newRow({ remark: '同值' });
      const before = (await stockAuditRecords(t, row.id)).length;
      const response = await t.request('PUT', `${STOCK}/${row.id}`, {
        token: manager.token,
        body: { stock_quantity: 10, remark: '同值', warehouse_location: 'A/01/01' },
      });
      expect(response.statusCode).toBe(200);
      expect(response.json().updated_at).toBe(row.updated_at);
      expect(await stockAuditRecords(t, row.id)).toHaveLength(before);
    });

    it('clears optional fields with null', async () => {
      const row = await newRow({ remark: 'x', production_date: '2025-01-01' });
      const response = await t.request('PUT', `${STOCK}/${row.id}`, { token: manager.token, body: { remark: null, production_date: null } });
      expect(response.json()).toMatchObject({ remark: null, production_date: null });
    });

    describe('refusals write nothing', () => {
      let row: StockRowJson;
      let product: StockRowJson;
      beforeAll(async () => {
        row = await newRow({ remark: 'unchanged' });
        product = await newRow({ source_table: 'stock_product', serial_number: 'SN-E1' });
      });

      const cases: Array<[string, () => string, () => unknown, number, string]> = [
        ['zero quantity', () => `${STOCK}/${row.id}`, () => ({ stock_quantity: 0 }), 400, 'VALIDATION_FAILED'],
        ['negative quantity', () => `${STOCK}/${row.id}`, () => ({ stock_quantity: -1 }), 400, 'VALIDATION_FAILED'],
        ['quantity as a string', () => `${STOCK}/${row.id}`, () => ({ stock_quantity: '3' }), 400, 'VALIDATION_FAILED'],
        ['bad date', () => `${STOCK}/${row.id}`, () => ({ in_date: '2025-13-01' }), 400, 'VALIDATION_FAILED'],
        ['nothing to change', () => `${STOCK}/${row.id}`, () => ({ status: '冻结' }), 400, 'VALIDATION_FAILED'],
        ['batch number on a product row', () => `${STOCK}/${product.id}`, () => ({ batch_number: 'LOT', remark: 'no' }), 400, 'VALIDATION_FAILED'],
        ['serial number on a purchased row', () => `${STOCK}/${row.id}`, () => ({ serial_number: 'SN', remark: 'no' }), 400, 'VALIDATION_FAILED'],
        ['unknown id', () => `${STOCK}/99999`, () => ({ remark: 'no' }), 404, 'NOT_FOUND'],
        ['other kind than the row', () => `${STOCK}/${row.id}`, () => ({ source_table: 'stock_semi', remark: 'no' }), 404, 'NOT_FOUND'],
      ];

      it.each(cases)('%s', async (_label, url, body, status, code) => {
        const response = await t.request('PUT', url(), { token: manager.token, body: body() });
        expect(response.statusCode).toBe(status);
        expect(response.json()).toMatchObject({ code, msg: expect.any(String) });
        expect(await read(row.id)).toMatchObject({ stock_quantity: 10, remark: 'unchanged', serial_number: null, in_date: row.in_date });
        expect(await read(product.id)).toMatchObject({ batch_number: '', remark: null });
      });

      it('malformed JSON', async () => {
        const response = await t.request('PUT', `${STOCK}/${row.id}`, {
          token: manager.token,
          body: '{"remark": ',
          headers: { 'content-type': 'application/json' },
        });
        expect(response.statusCode).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String) });
      });

      it('another company gets 404, a caller without inbound_stock:operation 403', async () => {
        const other = await t.request('PUT', `${STOCK}/${row.id}`, { token: betaManager.token, body: { remark: 'beta' } });
        expect(other.statusCode).toBe(404);
        const forbidden = await t.request('PUT', `${STOCK}/${row.id}`, { token: sales.token, body: { remark: 'sales' } });
        expect(forbidden.statusCode).toBe(403);
        expect(await read(row.id)).toMatchObject({ remark: 'unchanged' });
      });
    });
  });

  describe('DELETE /inbound/stock/:id', () => {
    it('deletes a row with nothing held and records it in the audit log', async () => {
      const row = await newRow();
      const before = (await t.request('GET', `${STOCK}/${row.id}`, { token: inbound.token })).json();
      const response = await t.request('DELETE', `${STOCK}/${row.id}`, { token: inbound.token });
      expect(response.statusCode).toBe(200);
      expect(response.json()).toEqual(before);
      expect((await t.request('GET', `${STOCK}/${row.id}`, { token: manager.token })).statusCode).toBe(404);
      const records = await stockAuditRecords(t, row.id);
      expect(records.at(-1)).toMatchObject({ module: '库存管理', action: 'DELETE', username: inbound.username, request_url: `${STOCK}/${row.id}` });
      expect(records.at(-1)!.details).toHaveProperty('deleted_snapshot');
    });

    it('deletes through /stock/:id and in any status', async () => {
      const row = await newRow();
      await t.request('POST', `${STOCK}/${row.id}/change-status`, { token: manager.token, body: { status: '不良品' } });
      const response = await t.request('DELETE', `/api/v1/stock/${row.id}`, { token: manager.token });
      expect(response.json()).toMatchObject({ id: row.id, sku: row.sku, status: '不良品' });
    });

    it('refuses a row with reserved or borrowed quantity with 400 IN_USE', async () => {
      const row = await newRow();
      await holdQuantityDirectly(t, row.id, 0.5);
      const response = await t.request('DELETE', `${STOCK}/${row.id}`, { token: manager.token });
      expect(response.statusCode).toBe(400);
      expect(response.json()).toMatchObject({ code: 'IN_USE', reserved: 0.5, msg: expect.stringContaining('0.5') });
      expect(await read(row.id)).toMatchObject({ id: row.id, available_quantity: 9.5 });
    });

    it('is 404 for another company or an unknown id, 403 without the permission, 400 for a bad id', async () => {
      const row = await newRow();
      expect((await t.request('DELETE', `${STOCK}/${row.id}`, { token: betaManager.token })).statusCode).toBe(404);
      expect((await t.request('DELETE', `${STOCK}/88888`, { token: manager.token })).statusCode).toBe(404);
      expect((await t.request('DELETE', `${STOCK}/${row.id}?source_table=stock_product`, { token: manager.token })).statusCode).toBe(404);
      const forbidden = await t.request('DELETE', `${STOCK}/${row.id}`, { token: sales.token });
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().code).toBe('FORBIDDEN');
      expect((await t.request('DELETE', `${STOCK}/-1`, { token: manager.token })).statusCode).toBe(400);
      expect(await read(row.id)).toMatchObject({ id: row.id });
    });
  });

  describe('POST /inbound/stock/:id/change-status', () => {
    const change = (id: number, status: unknown, token = manager.token, path = STOCK) =>
      t.request('POST', `${path}/${id}/change-status`, { token, body: { status } });

    it('allows every move among 在库, 冻结 and 不良品 and leaves quantities alone', async () => {
      const row = await newRow();
      await holdQuantityDirectly(t, row.id, 2);
      const moves = ['冻结', '不良品', '在库', '不良品', '冻结', '在库'];
      for (const status of moves) {
        const response = await change(row.id, status, manager.token, status === '不良品' ? '/api/v1/stock' : STOCK);
        expect(response.statusCode, status).toBe(200);
        expect(response.json()).toMatchObject({ id: row.id, status, stock_quantity: 10, available_quantity: 8 });
      }
      const updates = (await stockAuditRecords(t, row.id)).filter((record) => record.username === manager.username && record.action === 'UPDATE');
      expect(updates).toHaveLength(moves.length);
      expect(updates[0]).toMatchObject({ module: '库存管理', request_url: `${STOCK}/${row.id}/change-status` });
      expect(updates[0]!.details.changes).toEqual([{ field: 'status', old: '在库', new: '冻结' }]);
    });

    it('answers the row unchanged, writing nothing, when the status is the same', async () => {
      const row = await newRow();
      const before = (await stockAuditRecords(t, row.id)).length;
      const response = await change(row.id, '在库');
      expect(response.statusCode).toBe(200);
      expect(response.json()).toMatchObject({ status: '在库', updated_at: row.updated_at });
      expect(await stockAuditRecords(t, row.id)).toHaveLength(before);
    });

    it('refuses bad input, other companies and callers without stock_change_status', async () => {
      const row = await newRow();
      for (const status of ['已出库', '', 1, null]) {
        const response = await change(row.id, status);
        expect(response.statusCode, String(status)).toBe(400);
        expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String) });
      }
      const missing = await t.request('POST', `${STOCK}/${row.id}/change-status`, { token: manager.token, body: {} });
      expect(missing.statusCode).toBe(400);
      const malformed = await t.request('POST', `${STOCK}/${row.id}/change-status`, {
        token: manager.token,
        body: '{"status": "冻结"',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().code).toBe('VALIDATION_FAILED');
      expect((await change(row.id, '冻结', betaManager.token)).statusCode).toBe(404);
      expect((await change(77777, '冻结')).statusCode).toBe(404);
      const forbidden = await change(row.id, '冻结', inbound.token); // INBOUND lacks stock_change_status
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json().code).toBe('FORBIDDEN');
      expect(await read(row.id)).toMatchObject({ status: '在库' });
    });
  });

  describe('the quantity invariant lives in the database', () => {
    it('refuses available above stock or below zero, whatever the writer', async () => {
      const row = await newRow();
      const { database } = t.service.deps;
      for (const assignment of [sql`available_quantity = stock_quantity + 1`, sql`available_quantity = -1`, sql`stock_quantity = available_quantity - 1`]) {
        await expect(
          database.transaction({ actor: 'test' }, (tx) => tx.execute(sql`update stock_rows set ${assignment} where id = ${row.id}`)),
        ).rejects.toThrow();
      }
      const [stored] = await queryRows<{ s: string; a: string }>(
        t,
        sql`select stock_quantity::text as s, available_quantity::text as a from stock_rows where id = ${row.id}`,
      );
      expect(stored).toEqual({ s: '10', a: '10' });
    });

    it('keeps available = stock − held under concurrent edits', async () => {
      const row = await newRow();
      await holdQuantityDirectly(t, row.id, 3);
      const quantities = [5, 8, 13, 21, 34, 2, 55, 3.5, 89, 144];
      const responses = await Promise.all(
        quantities.map((stock_quantity) => t.request('PUT', `${STOCK}/${row.id}`, { token: manager.token, body: { stock_quantity } })),
      );
      const refused = responses.filter((response) => response.statusCode === 400);
      expect(refused.map((response) => response.json().code)).toEqual(['QUANTITY_BELOW_RESERVED']);
      const final = await read(row.id);
      expect(final.stock_quantity - final.available_quantity).toBe(3);
    });
  });

  describe('GET /inbound/stock/reconcile (contract §8: the ledger identity, checked by a reconcile job)', () => {
    const reconcile = (token = t.adminToken, query = '') => t.request('GET', `${STOCK}/reconcile${query}`, { token });
    const listed = (body: { mismatches: Array<{ id: number }> }, id: number) => body.mismatches.find((row) => row.id === id);

    it('lists a row whose available differs from stock − open reservations − borrowed, and not a row held by a real reservation', async () => {
      const broken = await newRow();
      await holdQuantityDirectly(t, broken.id, 3); // held outside any request: the books no longer add up
      const reserved = await newRow({ in_quantity: 1000 });
      const submitted = await t.request('POST', '/api/v1/outbound/request', {
        token: manager.token,
        body: { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 4 }], remark: '对账' },
      });
      expect(submitted.statusCode, submitted.body).toBe(201);
      expect((await read(reserved.id)).available_quantity).toBe(996);

      const response = await reconcile();
      expect(response.statusCode, response.body).toBe(200);
      const report = response.json();
      expect(report.ok).toBe(false);
      expect(listed(report, broken.id)).toEqual({
        id: broken.id,
        sku: broken.sku,
        source_table: 'stock_buy',
        base_id: material.id,
        company_name: 'ALPHA',
        status: '在库',
        stock_quantity: 10,
        available_quantity: 7,
        held_quantity: 0,
        expected_available_quantity: 10,
      });
      expect(listed(report, reserved.id)).toBeUndefined();
      expect(report.stale_reservations).toEqual([]);
      expect((await t.request('GET', `/api/v1/stock/reconcile`, { token: t.adminToken })).json().mismatches).toEqual(report.mismatches);
    });

    it('lists a closed request that still claims a reservation, and the row it no longer holds', async () => {
      const submitted = await t.request('POST', '/api/v1/outbound/request', {
        token: manager.token,
        body: { outbound_type: 'USE', items: [{ base_id: material.id, quantity: 2 }], remark: '泄漏' },
      });
      expect(submitted.statusCode, submitted.body).toBe(201);
      const { id, items } = submitted.json() as { id: number; items: Array<{ stock_id: number }> };
      // closed behind the service's back: the lines still say reserved, nothing holds them any more
      await t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
        tx.execute(sql`update outbound_requests set status = 4, close_reason = 'closed' where id = ${id}`),
      );
      const report = (await reconcile()).json();
      expect(report.ok).toBe(false);
      expect(report.stale_reservations).toContainEqual({ biz_type: 'outbound', id });
      const leaked = listed(report, items[0]!.stock_id) as { available_quantity: number; expected_available_quantity: number } | undefined;
      expect(leaked && leaked.expected_available_quantity - leaked.available_quantity).toBe(2);
      await t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
        tx.execute(sql`update outbound_requests set status = 0, close_reason = null where id = ${id}`),
      );
    });

    it('narrows to one company and is for SUPER_ADMIN only', async () => {
      const broken = await newRow();
      await holdQuantityDirectly(t, broken.id, 1);
      expect(listed((await reconcile(t.adminToken, '?company=ALPHA')).json(), broken.id)).toBeDefined();
      expect((await reconcile(t.adminToken, '?company=BETA')).json().mismatches).toEqual([]);
      const forbidden = await reconcile(manager.token);
      expect(forbidden.statusCode).toBe(403);
      expect(forbidden.json()).toEqual({ code: 'FORBIDDEN', msg: '仅超级管理员可以执行此操作' }); // not the internal code's name
      expect((await t.request('GET', `${STOCK}/reconcile`)).statusCode).toBe(401);
    });

    it('is what the background job runs: a broken identity is logged as an error naming the rows', async () => {
      const broken = await newRow();
      await holdQuantityDirectly(t, broken.id, 2);
      const logged: Array<{ details: { mismatches: Array<{ id: number }> }; msg: string }> = [];
      const log = { error: (details: never, msg: string) => logged.push({ details, msg }), warn: () => undefined };
      const report = await reconcileAndLog(t.service.deps.database, log as never);
      expect(report?.ok).toBe(false);
      expect(logged).toHaveLength(1);
      expect(logged[0]!.msg).toContain('库存账不平');
      expect(logged[0]!.details.mismatches.map((row) => row.id)).toContain(broken.id);
    });
  });
});
