import { and, asc, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyFor, IDEMPOTENCY_TTL_MS, MemoryLockStore } from '@wms/platform';
import { auditLogs, materials } from '../src/db/schema/index.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

const BASE = '/api/v1/inbound/base';

describe('material master data', () => {
  let t: TestInventory;
  let alphaMgr: TestUser;
  let betaMgr: TestUser;
  let sales: TestUser;
  const locks = new MemoryLockStore();

  beforeAll(async () => {
    t = await buildTestInventory({ locks });
    alphaMgr = await t.user('WAREHOUSE_MGR', 'ALPHA');
    betaMgr = await t.user('WAREHOUSE_MGR', 'BETA');
    sales = await t.user('SALES', 'ALPHA');
  });
  afterAll(() => t.close());

  const create = async (token: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', BASE, { token, body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json();
  };
  const materialCount = async () => {
    const [row] = await t.service.deps.database.read((q) => q.select({ n: count() }).from(materials));
    return row!.n;
  };
  const storedMaterial = async (id: number) => {
    const [row] = await t.service.deps.database.read((q) => q.select().from(materials).where(eq(materials.id, id)));
    return row;
  };

  describe('create, read, update, delete', () => {
    it('creates a material in the caller company and answers 201 with the material', async () => {
      const res = await t.request('POST', `${BASE}/`, {
        token: alphaMgr.token,
        body: {
          name: ' 电阻 ',
          spec_model: '0603 10k',
          category: ' 电子 / 电阻 //贴片 ',
          unit: '个',
          company_name: 'BETA',
          purchaseLink: 'https://shop.example/r',
          referencePrice: 0.12,
          productImageRemark: '图片',
          manualLinkRemark: '说明书',
          remark: '常用',
          red_threshold: 10,
          yellow_threshold: 20.5,
          target_threshold: null,
        },
      });
      expect(res.statusCode, res.body).toBe(201);
      const material = res.json();
      expect(material).toMatchObject({
        base_id: material.id,
        name: '电阻',
        spec_model: '0603 10k',
        category: '电子/电阻/贴片',
        unit: '个',
        company_name: 'ALPHA',
        purchaseLink: 'https://shop.example/r',
        referencePrice: 0.12,
        productImageRemark: '图片',
        manualLinkRemark: '说明书',
        remark: '常用',
        red_threshold: 10,
        yellow_threshold: 20.5,
        target_threshold: null,
      });
      expect(new Date(material.created_at).toISOString()).toBe(material.created_at);
      const read = await t.request('GET', `${BASE}/${material.id}`, { token: alphaMgr.token });
      expect(read.json()).toEqual(material);
    });

    it('answers both create paths (with and without the trailing slash)', async () => {
      const material = await create(alphaMgr.token, { name: '螺丝', category: '机械/紧固件' });
      expect(material).toMatchObject({ spec_model: '', unit: '', remark: null, referencePrice: null, red_threshold: null });
    });

    it('updates only the fields sent and keeps the rest', async () => {
      const material = await create(alphaMgr.token, { name: '电容', spec_model: '10uF', category: '电子/电容', unit: '个', remark: '旧', red_threshold: 5 });
      const res = await t.request('PUT', `${BASE}/${material.id}`, {
        token: alphaMgr.token,
        body: { remark: '新', category: '电子 / 电容 / 陶瓷', red_threshold: null, referencePrice: 1.5 },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.json()).toMatchObject({
        name: '电容',
        spec_model: '10uF',
        unit: '个',
        category: '电子/电容/陶瓷',
        remark: '新',
        red_threshold: null,
        referencePrice: 1.5,
      });
      expect(Date.parse(res.json().updated_at)).toBeGreaterThanOrEqual(Date.parse(material.updated_at));
    });

    it('clears spec_model and unit to an empty string when sent null', async () => {
      const material = await create(alphaMgr.token, { name: '清空', spec_model: 'S1', unit: '箱', category: 'C' });
      const res = await t.request('PUT', `${BASE}/${material.id}`, { token: alphaMgr.token, body: { spec_model: null, unit: null } });
      expect(res.json()).toMatchObject({ spec_model: '', unit: '' });
    });

    it('answers 409 LOCK_HELD while the same create is running, and writes nothing', async () => {
      const body = { name: '并发', category: 'LOCK' };
      const held = await locks.acquire(idempotencyKeyFor(alphaMgr.id, 'POST', BASE, body), IDEMPOTENCY_TTL_MS);
      const before = await materialCount();
      const res = await t.request('POST', BASE, { token: alphaMgr.token, body });
      expect(res.statusCode).toBe(409);
      expect(res.json().code).toBe('LOCK_HELD');
      expect(await materialCount()).toBe(before);
      await locks.release(idempotencyKeyFor(alphaMgr.id, 'POST', BASE, body), (held as { token: string }).token);
      await create(alphaMgr.token, body);
    });

    it('documents every material path in the OpenAPI document, the trailing-slash twin left out', async () => {
      const paths = Object.keys((await t.request('GET', '/api/v1/openapi.json')).json().paths);
      for (const path of ['', '/{id}', '/export', '/ext-summary', '/spec-suggestions']) expect(paths).toContain(`${BASE}${path}`);
      expect(paths).not.toContain(`${BASE}/`);
    });

    it('deletes a material and answers it as it was (contract §4)', async () => {
      const material = await create(alphaMgr.token, { name: '待删', category: '临时', spec_model: 'D-1' });
      const res = await t.request('DELETE', `${BASE}/${material.id}`, { token: alphaMgr.token });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toEqual(material);
      expect((await t.request('GET', `${BASE}/${material.id}`, { token: alphaMgr.token })).statusCode).toBe(404);
    });
  });

  describe('list', () => {
    beforeAll(async () => {
      for (const category of ['LIST/B', 'LIST/B/C', 'LIST/BC', 'LIST/X']) {
        await create(alphaMgr.token, { name: `Resistor ${category}`, spec_model: `SPEC-${category}`, category });
      }
    });

    it('pages with the envelope and a stable order', async () => {
      const first = (await t.request('GET', `${BASE}?keyword=resistor LIST&limit=3`, { token: alphaMgr.token })).json();
      expect(first).toMatchObject({ total: 4, page: 1, limit: 3 });
      expect(first.items).toHaveLength(3);
      const second = (await t.request('GET', `${BASE}?keyword=resistor LIST&limit=3&page=2`, { token: alphaMgr.token })).json();
      expect(second.items).toHaveLength(1);
      const ids = [...first.items, ...second.items].map((m: { id: number }) => m.id);
      expect(new Set(ids).size).toBe(4);
    });

    it('pages 20 by default and caps the limit at 200 (contract §2)', async () => {
      for (let i = 0; i < 21; i += 1) await create(alphaMgr.token, { name: `PAGE-DEFAULT ${i}`, category: 'PAGING' });
      const first = (await t.request('GET', `${BASE}?category=PAGING`, { token: alphaMgr.token })).json();
      expect(first).toMatchObject({ total: 21, page: 1, limit: 20 });
      expect(first.items).toHaveLength(20);
      const capped = (await t.request('GET', `${BASE}?category=PAGING&limit=500`, { token: alphaMgr.token })).json();
      expect(capped).toMatchObject({ total: 21, page: 1, limit: 200 });
      expect(capped.items).toHaveLength(21);
    });

    it('matches the keyword case-insensitively on name, spec_model and category', async () => {
      const byName = (await t.request('GET', `${BASE}?keyword=RESISTOR`, { token: alphaMgr.token })).json();
      expect(byName.total).toBe(4);
      const bySpec = (await t.request('GET', `${BASE}?keyword=spec-list/x`, { token: alphaMgr.token })).json();
      expect(bySpec.items.map((m: { category: string }) => m.category)).toEqual(['LIST/X']);
      const byCategory = (await t.request('GET', `${BASE}?keyword=list/bc`, { token: alphaMgr.token })).json();
      expect(byCategory.items.map((m: { category: string }) => m.category)).toEqual(['LIST/BC']);
    });

    it('filters the category by path prefix on whole segments', async () => {
      const res = await t.request('GET', `${BASE}?category=${encodeURIComponent(' LIST / B ')}`, { token: alphaMgr.token });
      expect(res.json().items.map((m: { category: string }) => m.category).sort()).toEqual(['LIST/B', 'LIST/B/C']);
      const top = await t.request('GET', `${BASE}?category=LIST&limit=200`, { token: alphaMgr.token });
      expect(top.json().total).toBe(4);
      const wildcard = await t.request('GET', `${BASE}?category=LIST/_`, { token: alphaMgr.token });
      expect(wildcard.json().total).toBe(0);
    });

    it('needs only a login to read, and a token', async () => {
      expect((await t.request('GET', BASE, { token: sales.token })).statusCode).toBe(200);
      expect((await t.request('GET', BASE)).statusCode).toBe(401);
    });
  });

  describe('company isolation', () => {
    let alphaMaterial: { id: number; remark: string };

    beforeAll(async () => {
      alphaMaterial = await create(alphaMgr.token, { name: 'ALPHA 专用', category: '隔离', remark: 'alpha' });
      await create(betaMgr.token, { name: 'BETA 专用', category: '隔离' });
    });

    it('keeps another company out of list, detail, update and delete', async () => {
      const list = (await t.request('GET', `${BASE}?limit=200`, { token: betaMgr.token })).json();
      expect(list.items.every((m: { company_name: string }) => m.company_name === 'BETA')).toBe(true);
      const asked = (await t.request('GET', `${BASE}?limit=200&company=ALPHA`, { token: betaMgr.token })).json();
      expect(asked.items.every((m: { company_name: string }) => m.company_name === 'BETA')).toBe(true);

      const detail = await t.request('GET', `${BASE}/${alphaMaterial.id}`, { token: betaMgr.token });
      expect(detail.statusCode).toBe(404);
      expect(detail.json()).toMatchObject({ code: 'NOT_FOUND', msg: expect.any(String) });
      const update = await t.request('PUT', `${BASE}/${alphaMaterial.id}`, { token: betaMgr.token, body: { remark: 'beta was here' } });
      expect(update.statusCode).toBe(404);
      const removal = await t.request('DELETE', `${BASE}/${alphaMaterial.id}`, { token: betaMgr.token });
      expect(removal.statusCode).toBe(404);

      const stored = await storedMaterial(alphaMaterial.id);
      expect(stored).toMatchObject({ remark: 'alpha', companyName: 'ALPHA' });
    });

    it('lets cross-domain callers see all companies or narrow to one', async () => {
      const all = (await t.request('GET', `${BASE}?keyword=专用`, { token: t.adminToken })).json();
      expect(all.items.map((m: { company_name: string }) => m.company_name).sort()).toEqual(['ALPHA', 'BETA']);
      const one = (await t.request('GET', `${BASE}?keyword=专用&company=BETA`, { token: t.adminToken })).json();
      expect(one.items.map((m: { company_name: string }) => m.company_name)).toEqual(['BETA']);
    });

    it('requires cross-domain callers to name the company on create', async () => {
      const before = await materialCount();
      const res = await t.request('POST', BASE, { token: t.adminToken, body: { name: '无公司', category: 'X' } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'COMPANY_REQUIRED', msg: expect.any(String) });
      const blank = await t.request('POST', BASE, { token: t.adminToken, body: { name: '无公司', category: 'X', company_name: '  ' } });
      expect(blank.statusCode).toBe(400);
      expect(await materialCount()).toBe(before);
      const named = await create(t.adminToken, { name: '有公司', category: 'X', company_name: 'BETA' });
      expect(named.company_name).toBe('BETA');
    });

    it('lets only cross-domain callers move a material to another company', async () => {
      await t.request('PUT', '/api/v1/permissions/role/OUTBOUND', {
        token: t.adminToken,
        body: { permissions: ['material_list:operation', 'crossDomain'] },
      });
      const crossDomain = await t.user('OUTBOUND', 'ALPHA');
      const missing = await t.request('POST', BASE, { token: crossDomain.token, body: { name: '跨域', category: 'X' } });
      expect(missing.statusCode).toBe(400);
      expect(missing.json().code).toBe('COMPANY_REQUIRED');
      await t.user('SALES', 'GAMMA'); // a company exists once a user belongs to it
      const material = await create(crossDomain.token, { name: '跨域', category: 'X', company_name: 'GAMMA' });
      expect(material.company_name).toBe('GAMMA');

      const ignored = await t.request('PUT', `${BASE}/${alphaMaterial.id}`, { token: alphaMgr.token, body: { company_name: 'BETA', remark: 'moved?' } });
      expect(ignored.statusCode).toBe(200);
      expect(ignored.json()).toMatchObject({ company_name: 'ALPHA', remark: 'moved?' });

      const typo = await t.request('PUT', `${BASE}/${material.id}`, { token: crossDomain.token, body: { company_name: 'NOPE_CO' } });
      expect(typo.statusCode).toBe(400);
      expect(typo.json().code).toBe('UNKNOWN_COMPANY');
      const moved = await t.request('PUT', `${BASE}/${material.id}`, { token: crossDomain.token, body: { company_name: 'ALPHA' } });
      expect(moved.json().company_name).toBe('ALPHA');
      expect((await t.request('GET', `${BASE}/${material.id}`, { token: alphaMgr.token })).statusCode).toBe(200);
    });
  });

  describe('permissions', () => {
    it('refuses writes without material_list:operation', async () => {
      const material = await create(alphaMgr.token, { name: '权限', category: 'P' });
      const before = await materialCount();
      const post = await t.request('POST', BASE, { token: sales.token, body: { name: 'x', category: 'P' } });
      expect(post.statusCode).toBe(403);
      expect(post.json()).toMatchObject({ code: 'FORBIDDEN', msg: expect.any(String) });
      expect((await t.request('PUT', `${BASE}/${material.id}`, { token: sales.token, body: { remark: 'x' } })).statusCode).toBe(403);
      expect((await t.request('DELETE', `${BASE}/${material.id}`, { token: sales.token })).statusCode).toBe(403);
      expect(await materialCount()).toBe(before);
      expect((await storedMaterial(material.id))?.remark).toBeNull();
    });
  });

  describe('delete while in use', () => {
    it('refuses with IN_USE while a stock row uses the material', async () => {
      const material = await create(alphaMgr.token, { name: '在用物料', category: 'U' });
      const stockIn = await t.request('POST', '/api/v1/inbound/stock', {
        token: alphaMgr.token,
        body: { source_table: 'stock_buy', base_id: material.id, in_quantity: 3, warehouse_location: 'A/1' },
      });
      expect(stockIn.statusCode, stockIn.body).toBe(201);
      const refused = await t.request('DELETE', `${BASE}/${material.id}`, { token: alphaMgr.token });
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'IN_USE', msg: expect.stringContaining('库存记录') });
      expect(await storedMaterial(material.id)).toBeDefined();

      const stockRemoved = await t.request('DELETE', `/api/v1/inbound/stock/${stockIn.json().id}`, { token: alphaMgr.token });
      expect(stockRemoved.statusCode, stockRemoved.body).toBeLessThan(300);
      expect((await t.request('DELETE', `${BASE}/${material.id}`, { token: alphaMgr.token })).statusCode).toBe(200);
      expect(await storedMaterial(material.id)).toBeUndefined();
    });

    it('refuses a move to another company while a BOM uses the material: its BOM stays with its company', async () => {
      const parent = await create(alphaMgr.token, { name: '整机', category: 'BOMMOVE' });
      const child = await create(alphaMgr.token, { name: '机密子件', category: 'BOMMOVE' });
      const bom = await t.request('POST', '/api/v1/bom/save', { token: alphaMgr.token, body: { parent_id: parent.id, items: [{ child_id: child.id, quantity: 2 }] } });
      expect(bom.statusCode, bom.body).toBe(200);
      await t.user('SALES', 'BETA');
      for (const material of [parent, child]) {
        const refused = await t.request('PUT', `${BASE}/${material.id}`, { token: t.adminToken, body: { company_name: 'BETA' } });
        expect(refused.statusCode).toBe(400);
        expect(refused.json()).toMatchObject({ code: 'IN_USE', msg: expect.stringContaining('不能移到其他公司') });
        expect((await storedMaterial(material.id))?.companyName).toBe('ALPHA');
      }
      const remark = await t.request('PUT', `${BASE}/${parent.id}`, { token: t.adminToken, body: { company_name: 'ALPHA', remark: '同公司' } });
      expect(remark.statusCode).toBe(200);
    });
  });

  describe('bad input', () => {
    let material: { id: number; updated_at: string };
    beforeAll(async () => {
      material = await create(alphaMgr.token, { name: '校验', spec_model: 'V1', category: 'V', red_threshold: 1 });
    });

    const expectRejected = (res: { statusCode: number; json(): unknown }, status = 400) => {
      expect(res.statusCode).toBe(status);
      expect(res.json()).toMatchObject({ msg: expect.any(String), code: expect.any(String) });
    };

    it('rejects bad creates and writes nothing', async () => {
      const before = await materialCount();
      const bodies: unknown[] = [
        { category: 'V' },
        { name: '', category: 'V' },
        { name: '   ', category: 'V' },
        { name: 'x' },
        { name: 'x', category: ' / / ' },
        { name: 123, category: 'V' },
        { name: 'x', category: 'V', spec_model: 5 },
        { name: 'x', category: 'V', referencePrice: '12' },
        { name: 'x', category: 'V', referencePrice: -1 },
        { name: 'x', category: 'V', red_threshold: -1 },
        { name: 'x', category: 'V', yellow_threshold: '3' },
        { name: 'x', category: 'V', target_threshold: -0.5 },
        { name: 'x'.repeat(201), category: 'V' },
      ];
      for (const body of bodies) {
        const res = await t.request('POST', BASE, { token: alphaMgr.token, body });
        expectRejected(res);
        expect(res.json().code, JSON.stringify(body)).toBe('VALIDATION_FAILED');
      }
      const malformed = await t.request('POST', BASE, {
        token: alphaMgr.token,
        body: '{"name": "x", "category":',
        headers: { 'content-type': 'application/json' },
      });
      expectRejected(malformed);
      expect(await materialCount()).toBe(before);
    });

    it('rejects bad updates and changes nothing', async () => {
      const bodies: unknown[] = [
        { name: '' },
        { name: 7 },
        { category: '///' },
        { red_threshold: -3 },
        { referencePrice: -0.01 },
        { referencePrice: 1e9 },
        { remark: 42 },
      ];
      for (const body of bodies) {
        expectRejected(await t.request('PUT', `${BASE}/${material.id}`, { token: alphaMgr.token, body }));
      }
      expectRejected(
        await t.request('PUT', `${BASE}/${material.id}`, { token: alphaMgr.token, body: '{bad', headers: { 'content-type': 'application/json' } }),
      );
      const stored = await storedMaterial(material.id);
      expect(stored).toMatchObject({ name: '校验', category: 'V', redThreshold: '1', referencePrice: null, remark: null });
      expect(stored!.updatedAt.toISOString()).toBe(material.updated_at);
    });

    it('answers unknown or malformed ids with 404 or 400', async () => {
      for (const method of ['GET', 'PUT', 'DELETE']) {
        const body = method === 'PUT' ? { remark: 'x' } : undefined;
        expectRejected(await t.request(method, `${BASE}/999999`, { token: alphaMgr.token, body }), 404);
        expectRejected(await t.request(method, `${BASE}/abc`, { token: alphaMgr.token, body }), 400);
        expectRejected(await t.request(method, `${BASE}/0`, { token: alphaMgr.token, body }), 400);
      }
    });

    it('rejects bad list, export, summary and suggestion queries', async () => {
      expectRejected(await t.request('GET', `${BASE}?page=0`, { token: alphaMgr.token }));
      expectRejected(await t.request('GET', `${BASE}?limit=-1`, { token: alphaMgr.token }));
      expectRejected(await t.request('GET', `${BASE}?limit=abc`, { token: alphaMgr.token }));
      expectRejected(await t.request('GET', `${BASE}/export?keyword=${'k'.repeat(201)}`, { token: alphaMgr.token }));
      expectRejected(await t.request('GET', `${BASE}/ext-summary?company=${'c'.repeat(65)}`, { token: alphaMgr.token }));
      expectRejected(await t.request('GET', `${BASE}/spec-suggestions?keyword=${'k'.repeat(201)}`, { token: alphaMgr.token }));
    });
  });

  describe('audit', () => {
    it('records create, update and delete with the caller and the request URL', async () => {
      const material = await create(alphaMgr.token, { name: '审计物料', category: 'A' });
      await t.request('PUT', `${BASE}/${material.id}`, { token: alphaMgr.token, body: { remark: '改了' } });
      await t.request('DELETE', `${BASE}/${material.id}`, { token: alphaMgr.token });
      const records = await t.service.deps.database.read((q) =>
        q
          .select()
          .from(auditLogs)
          .where(and(eq(auditLogs.tableName, 'materials'), eq(auditLogs.targetId, String(material.id))))
          .orderBy(asc(auditLogs.id)),
      );
      expect(records.map((r) => [r.action, r.username, r.requestUrl, r.module, r.companyName, r.targetName])).toEqual([
        ['CREATE', alphaMgr.username, BASE, '物料管理', 'ALPHA', '审计物料'],
        ['UPDATE', alphaMgr.username, `${BASE}/${material.id}`, '物料管理', 'ALPHA', '审计物料'],
        ['DELETE', alphaMgr.username, `${BASE}/${material.id}`, '物料管理', 'ALPHA', '审计物料'],
      ]);
      expect((records[1]!.details as { changes: { field: string }[] }).changes.map((c) => c.field)).toEqual(['remark']);
    });

    it('leaves no audit record for an update that changes nothing', async () => {
      const material = await create(alphaMgr.token, { name: '不变', category: 'A', referencePrice: 2.5, red_threshold: 3 });
      const res = await t.request('PUT', `${BASE}/${material.id}`, {
        token: alphaMgr.token,
        body: { name: '不变', referencePrice: 2.5, red_threshold: 3.0 },
      });
      expect(res.statusCode).toBe(200);
      const [updates] = await t.service.deps.database.read((q) =>
        q
          .select({ n: count() })
          .from(auditLogs)
          .where(and(eq(auditLogs.tableName, 'materials'), eq(auditLogs.targetId, String(material.id)), eq(auditLogs.action, 'UPDATE'))),
      );
      expect(updates!.n).toBe(0);
    });
  });
});
