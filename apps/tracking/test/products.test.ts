import { and, count, eq, sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@wms/platform';
import { auditLogs, products } from '../src/db/schema/index.js';
import { insertWithFreshSerial } from '../src/modules/products/serial-number.js';
import { buildTestTracking, type TestTracking, type TestUser } from './helpers.js';
import { createGroup, createProduct, groupedUser } from './scope-fixtures.js';

const PRODUCT_FIELDS = ['id', 'serial_number', 'model', 'base_id', 'status', 'lifecycle_phase', 'current_stage', 'group_id', 'created_at', 'completed_at'];

describe('products', () => {
  let t: TestTracking;
  let production: TestUser;
  let afterSales: TestUser;

  const productCount = async () => {
    const [row] = await t.service.deps.database.read((q) => q.select({ n: count() }).from(products));
    return row!.n;
  };
  const productRow = async (id: number) => {
    const [row] = await t.service.deps.database.read((q) => q.select().from(products).where(eq(products.id, id)));
    return row!;
  };
  /** Receiver-made moves (待仓库收货 → 已入库 → 已出库) are written straight into the table here. */
  const forceStatus = (id: number, status: string) =>
    t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) => tx.execute(sql`update products set status = ${status} where id = ${id}`));

  beforeAll(async () => {
    t = await buildTestTracking();
    production = await groupedUser(t, 'OPERATOR', ['PRODUCTION']);
    afterSales = await groupedUser(t, 'ENGINEER', ['AFTER_SALES']);
  });
  afterAll(() => t.close());

  describe('serial numbers', () => {
    it('are 16 uppercase hexadecimal digits without a prefix, and unique', async () => {
      const serials = new Set<string>();
      for (let i = 0; i < 15; i++) {
        const product = await createProduct(t);
        expect(product.serial_number).toMatch(/^[0-9A-F]{16}$/);
        serials.add(product.serial_number);
      }
      expect(serials.size).toBe(15);
    });

    it('ignore a serial_number sent by the client', async () => {
      const product = await createProduct(t, { serial_number: 'MINE000000000001' });
      expect(product.serial_number).not.toBe('MINE000000000001');
      expect(product.serial_number).toHaveLength(16);
    });

    it('draw again when the drawn serial already exists, and give up with 409 after repeated collisions', async () => {
      const existing = (await createProduct(t)).serial_number;
      const draws = [existing, existing, 'ABCDEF0123456789'];
      const row = await t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
        insertWithFreshSerial(tx, { model: '重试', status: '生产中', lifecyclePhase: 'PRODUCTION', currentStage: '装配' }, () => draws.shift()!),
      );
      expect(row.serialNumber).toBe('ABCDEF0123456789');

      const before = await productCount();
      await expect(
        t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
          insertWithFreshSerial(tx, { model: '重试', status: '生产中', lifecyclePhase: 'PRODUCTION', currentStage: '装配' }, () => existing),
        ),
      ).rejects.toMatchObject({ code: 'CONFLICT' });
      expect(await productCount()).toBe(before);
    });
  });

  describe('create', () => {
    it('answers the product fields with the defaults of a new product in production', async () => {
      const res = await t.request('POST', '/api/v1/products', { token: t.adminToken, body: { model: 'TX-200' } });
      expect(res.statusCode).toBe(201);
      const product = res.json();
      for (const field of PRODUCT_FIELDS) expect(product, field).toHaveProperty(field);
      expect(product).toMatchObject({
        model: 'TX-200',
        base_id: null,
        status: '生产中',
        lifecycle_phase: 'PRODUCTION',
        current_stage: '装配',
        group_id: null,
        completed_at: null,
      });
      expect(new Date(product.created_at).getTime()).toBeGreaterThan(0);
    });

    it('registers an after-sales product as 售后中, with its group and stage', async () => {
      const group = await createGroup(t, { phases: ['AFTER_SALES'] });
      const product = await createProduct(t, { lifecycle_phase: 'AFTER_SALES', group_id: group.id, current_stage: '检验' });
      expect(product).toMatchObject({ status: '售后中', lifecycle_phase: 'AFTER_SALES', current_stage: '检验', group_id: group.id });
    });

    it('registers a unit that is already finished as 待仓库收货 with its completion time; other start states are refused', async () => {
      const res = await t.request('POST', '/api/v1/products', { token: t.adminToken, body: { model: 'TX-300', status: '待仓库收货' } });
      expect(res.statusCode).toBe(201);
      const finished = res.json();
      expect(finished).toMatchObject({ status: '待仓库收货', lifecycle_phase: 'PRODUCTION' });
      expect(new Date(finished.completed_at).getTime()).toBeGreaterThan(0);
      expect(await createProduct(t, { model: 'TX-301', status: '售后中' })).toMatchObject({ status: '售后中', lifecycle_phase: 'AFTER_SALES', completed_at: null });

      const before = await productCount();
      const intoAfterSales = await t.request('POST', '/api/v1/products', { token: t.adminToken, body: { model: 'X', lifecycle_phase: 'PRODUCTION', status: '售后中' } });
      expect(intoAfterSales.statusCode).toBe(400);
      expect(intoAfterSales.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', msg: expect.stringContaining('售后中') });
      // 已入库 / 已出库 come only from the warehouse's notifications
      const stocked = await t.request('POST', '/api/v1/products', { token: t.adminToken, body: { model: 'X', status: '已入库' } });
      expect(stocked.statusCode).toBe(422);
      expect(stocked.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'status' });
      expect(await productCount()).toBe(before);
    });

    it('takes the model from a known material when only base_id is sent', async () => {
      const material = await t.request('POST', '/api/v1/materials', { token: t.adminToken, body: { name: '整机 A1', category: 'ALPHA/成品', base_id: 501 } });
      expect(material.statusCode).toBe(201);
      const product = await createProduct(t, { model: undefined, base_id: 501 });
      expect(product).toMatchObject({ model: '整机 A1', base_id: 501 });
    });

    it('answers bad input with 422 {msg, code} and writes nothing', async () => {
      const group = await createGroup(t);
      const before = await productCount();
      const cases: Array<[unknown, string]> = [
        [{}, 'model'],
        [{ base_id: 99999 }, 'model'],
        [{ model: '' }, 'model'],
        [{ model: '   ' }, 'model'],
        [{ model: 123 }, 'model'],
        [{ model: 'X', lifecycle_phase: 'RETIRED' }, 'lifecycle_phase'],
        [{ model: 'X', current_stage: '喷漆' }, 'current_stage'],
        [{ model: 'X', group_id: 'one' }, 'group_id'],
        [{ model: 'X', group_id: group.id + 1000 }, 'group_id'],
        [{ model: 'X', base_id: -1 }, 'base_id'],
      ];
      for (const [body, field] of cases) {
        const res = await t.request('POST', '/api/v1/products', { token: t.adminToken, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json(), JSON.stringify(body)).toMatchObject({ code: 'VALIDATION_FAILED', field });
        expect(typeof res.json().msg).toBe('string');
      }
      const malformed = await t.request('POST', '/api/v1/products', {
        token: t.adminToken,
        body: '{"model": ',
        headers: { 'content-type': 'application/json' },
      });
      expect(malformed.statusCode).toBe(400);
      expect(malformed.json().code).toBe('VALIDATION_FAILED');
      expect(await productCount()).toBe(before);
    });

    it('needs a login', async () => {
      expect((await t.request('POST', '/api/v1/products', { body: { model: 'X' } })).statusCode).toBe(401);
      expect((await t.request('GET', '/api/v1/products')).statusCode).toBe(401);
    });

    it('is refused with 403 in a phase outside the caller scope', async () => {
      const before = await productCount();
      const res = await t.request('POST', '/api/v1/products', { token: production.token, body: { model: 'X', lifecycle_phase: 'AFTER_SALES' } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'FORBIDDEN' });
      expect(await productCount()).toBe(before);
      const own = await t.request('POST', '/api/v1/products', { token: production.token, body: { model: 'X' } });
      expect(own.statusCode).toBe(201);
    });
  });

  describe('update', () => {
    it('finishes production (completed_at), goes back (cleared), and refuses the warehouse moves', async () => {
      const product = await createProduct(t);
      const done = await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body: { status: '待仓库收货', current_stage: '包装' } });
      expect(done.statusCode).toBe(200);
      expect(done.json()).toMatchObject({ status: '待仓库收货', current_stage: '包装' });
      expect(done.json().completed_at).not.toBeNull();

      const stocked = await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body: { status: '已入库' } });
      expect(stocked.statusCode).toBe(400);
      expect(stocked.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED' });

      const back = await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body: { status: '生产中' } });
      expect(back.json()).toMatchObject({ status: '生产中', completed_at: null });
    });

    it('moves a shipped product into after-sales, which changes its phase', async () => {
      const product = await createProduct(t);
      await forceStatus(product.id, '已出库');
      const res = await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body: { status: '售后中' } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: '售后中', lifecycle_phase: 'AFTER_SALES' });
    });

    it('keeps the after-sales phase of the move when the same body names another phase', async () => {
      const product = await createProduct(t);
      await forceStatus(product.id, '已出库');
      const res = await t.request('PATCH', `/api/v1/products/${product.id}`, {
        token: t.adminToken,
        body: { status: '售后中', lifecycle_phase: 'PRODUCTION' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ status: '售后中', lifecycle_phase: 'AFTER_SALES' });
    });

    it('writes nothing when every value is the stored one', async () => {
      const product = await createProduct(t, { model: '同值' });
      const auditCount = async () => {
        const [row] = await t.service.deps.database.read((q) =>
          q.select({ n: count() }).from(auditLogs).where(and(eq(auditLogs.tableName, 'products'), eq(auditLogs.targetId, String(product.id)))),
        );
        return row!.n;
      };
      const before = await auditCount();
      const res = await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body: { model: '同值', status: '生产中' } });
      expect(res.statusCode).toBe(200);
      expect(await auditCount()).toBe(before);
    });

    it('refuses a write to a product outside the caller scope with 403 and changes nothing', async () => {
      const foreign = await createProduct(t, { lifecycle_phase: 'AFTER_SALES' });
      const res = await t.request('PATCH', `/api/v1/products/${foreign.id}`, { token: production.token, body: { current_stage: '调试' } });
      expect(res.statusCode).toBe(403);
      expect(res.json()).toMatchObject({ code: 'FORBIDDEN' });
      expect((await productRow(foreign.id)).currentStage).toBe('装配');

      const own = await createProduct(t);
      const ok = await t.request('PATCH', `/api/v1/products/${own.id}`, { token: production.token, body: { current_stage: '调试' } });
      expect(ok.statusCode).toBe(200);
      const moveOut = await t.request('PATCH', `/api/v1/products/${own.id}`, { token: production.token, body: { lifecycle_phase: 'AFTER_SALES' } });
      expect(moveOut.statusCode).toBe(403);
      expect((await productRow(own.id)).lifecyclePhase).toBe('PRODUCTION');
    });

    it('answers 404 for an unknown product and 422 for bad input, writing nothing', async () => {
      expect((await t.request('PATCH', '/api/v1/products/999999', { token: t.adminToken, body: { model: 'x' } })).statusCode).toBe(404);
      const product = await createProduct(t);
      for (const body of [{}, { status: '报废' }, { model: '' }, { group_id: 999999 }, { current_stage: 3 }]) {
        const res = await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().code).toBe('VALIDATION_FAILED');
      }
      expect((await t.request('PATCH', '/api/v1/products/abc', { token: t.adminToken, body: { model: 'x' } })).statusCode).toBe(422);
      const row = await productRow(product.id);
      expect(row).toMatchObject({ model: 'TX-100', status: '生产中', groupId: null, currentStage: '装配' });
    });

    it('refuses a body of only unknown fields with 422 like {}, changing nothing', async () => {
      const product = await createProduct(t);
      for (const body of [{ serial_number: 'FFFFFFFFFFFFFFFF' }, { stocked_in_at: '2025-01-01T00:00:00Z', colour: 'red' }]) {
        const res = await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'body', msg: expect.stringContaining('没有需要修改的字段') });
      }
      const row = await productRow(product.id);
      expect(row.serialNumber).toBe(product.serial_number);
      expect(row.updatedAt.toISOString()).toBe(row.createdAt.toISOString());
    });
  });

  describe('lookups', () => {
    it('scan finds a product by serial (any case) across the caller scope; unknown is 404, bad input 422', async () => {
      const foreign = await createProduct(t, { lifecycle_phase: 'AFTER_SALES' });
      const scan = await t.request('GET', `/api/v1/products/scan/${foreign.serial_number.toLowerCase()}`, { token: production.token });
      expect(scan.statusCode).toBe(200);
      expect(scan.json()).toMatchObject({ id: foreign.id, serial_number: foreign.serial_number, lifecycle_phase: 'AFTER_SALES' });
      const list = await t.request('GET', `/api/v1/products?keyword=${foreign.serial_number}`, { token: production.token });
      expect(list.json().total).toBe(0);

      const unknown = await t.request('GET', '/api/v1/products/scan/FFFFFFFFFFFFFFFF', { token: production.token });
      expect(unknown.statusCode).toBe(404);
      expect(unknown.json().code).toBe('NOT_FOUND');
      expect((await t.request('GET', `/api/v1/products/scan/${'A'.repeat(65)}`, { token: production.token })).statusCode).toBe(422);
      expect((await t.request('GET', `/api/v1/products/scan/${foreign.serial_number}`)).statusCode).toBe(401);
    });

    it('detail by id is a lookup too; unknown id is 404', async () => {
      const foreign = await createProduct(t, { lifecycle_phase: 'AFTER_SALES' });
      const res = await t.request('GET', `/api/v1/products/${foreign.id}`, { token: production.token });
      expect(res.statusCode).toBe(200);
      expect(res.json().serial_number).toBe(foreign.serial_number);
      expect((await t.request('GET', '/api/v1/products/999999', { token: production.token })).statusCode).toBe(404);
    });

    it('lists with filters and paging', async () => {
      const group = await createGroup(t);
      const made = [];
      for (let i = 0; i < 3; i++) made.push(await createProduct(t, { model: '过滤型号', group_id: group.id }));
      const res = await t.request('GET', `/api/v1/products?group_id=${group.id}&limit=2&page=2`, { token: afterSales.token });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ total: 0, items: [] });
      const admin = await t.request('GET', `/api/v1/products?group_id=${group.id}&limit=2&page=2`, { token: t.adminToken });
      expect(admin.json()).toMatchObject({ total: 3, page: 2, limit: 2 });
      expect(admin.json().items.map((p: { id: number }) => p.id)).toEqual([made[0]!.id]);
      const byKeyword = await t.request('GET', `/api/v1/products?keyword=${made[1]!.serial_number.slice(3, 12).toLowerCase()}`, { token: t.adminToken });
      expect(byKeyword.json().items.map((p: { id: number }) => p.id)).toEqual([made[1]!.id]);
      expect((await t.request('GET', '/api/v1/products?status=坏了', { token: t.adminToken })).statusCode).toBe(422);
      expect((await t.request('GET', '/api/v1/products?limit=500', { token: t.adminToken })).json().limit).toBe(200);
      expect((await t.request('GET', '/api/v1/products?limit=0', { token: t.adminToken })).statusCode).toBe(422);
    });
  });

  describe('audit', () => {
    it('puts the audit trigger on every business table', async () => {
      const rows = await t.service.deps.database.read((q) =>
        queryRows<{ table_name: string; audited: boolean }>(q, sql`select c.relname as table_name,
            exists (select 1 from pg_trigger tg where tg.tgrelid = c.oid and tg.tgname like 'audit_%') as audited
          from pg_class c join pg_namespace n on n.oid = c.relnamespace
          where n.nspname = 'public' and c.relkind = 'r'`),
      );
      const technical = new Set(['audit_logs', 'idempotency_keys']);
      expect(rows.filter((row) => !row.audited && !technical.has(row.table_name)).map((row) => row.table_name)).toEqual([]);
    });

    it('records a product create under the acting account, named by its serial', async () => {
      const product = await createProduct(t, {}, production.token);
      const rows = await t.service.deps.database.read((q) =>
        q.select().from(auditLogs).where(and(eq(auditLogs.tableName, 'products'), eq(auditLogs.targetId, String(product.id)))),
      );
      expect(rows).toHaveLength(1);
      expect(rows[0]).toMatchObject({ module: '产品管理', action: 'CREATE', targetName: product.serial_number, username: production.username });
    });
  });
});

describe('serial numbers with SERIAL_PREFIX', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking({ config: { serialPrefix: 'X' } });
  });
  afterAll(() => t.close());

  it('are the prefix followed by 15 uppercase hexadecimal digits', async () => {
    for (let i = 0; i < 5; i++) {
      const product = await createProduct(t);
      expect(product.serial_number).toMatch(/^X[0-9A-F]{15}$/);
    }
  });
});
