import { count } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { materials } from '../src/db/schema/index.js';
import { upsertMaterial, type MaterialNotice } from '../src/modules/products/material-service.js';
import { buildTestTracking, type TestTracking } from './helpers.js';

describe('materials (product models)', () => {
  let t: TestTracking;

  /** What the stock-in receiver will do for each notification. */
  const notice = (m: MaterialNotice) => t.service.deps.database.transaction({ actor: 'receiver' }, (tx) => upsertMaterial(tx, m));
  const listed = async (query = '') => {
    const res = await t.request('GET', `/api/v1/materials?limit=200${query}`, { token: t.adminToken });
    expect(res.statusCode).toBe(200);
    return res.json() as { items: Array<{ id: number; base_id: number | null; name: string; category: string }>; total: number };
  };
  const materialCount = async () => {
    const [row] = await t.service.deps.database.read((q) => q.select({ n: count() }).from(materials));
    return row!.n;
  };

  beforeAll(async () => {
    t = await buildTestTracking({ config: { materialCategoryPrefix: 'ALPHA' } });
  });
  afterAll(() => t.close());

  it('lists only categories that start with the prefix and a slash (leading match, never a substring)', async () => {
    await notice({ base_id: 1, name: '整机 A', category: 'ALPHA/成品' });
    await notice({ base_id: 2, name: '深层', category: 'ALPHA/成品/整机' });
    await notice({ base_id: 3, name: '别人的', category: 'BETA/ALPHA/x' });
    await notice({ base_id: 4, name: '相似前缀', category: 'ALPHAX/y' });
    await notice({ base_id: 5, name: '无斜杠', category: 'ALPHA' });
    await notice({ base_id: 6, name: '小写', category: 'alpha/x' });
    const page = await listed();
    expect(page.items.map((m) => m.base_id).sort()).toEqual([1, 2]);
    expect(page.total).toBe(2);
    expect(page.items[0]).toMatchObject({ base_id: 1, name: '整机 A', category: 'ALPHA/成品' });
  });

  it('refreshes a known base_id instead of adding a row, and adopts a hand-made model of the same name', async () => {
    await notice({ base_id: 10, name: '旧名', category: 'ALPHA/成品' });
    await notice({ base_id: 10, name: '新名', category: ' ALPHA / 成品 / 新 ' });
    const refreshed = (await listed()).items.filter((m) => m.base_id === 10);
    expect(refreshed).toEqual([expect.objectContaining({ name: '新名', category: 'ALPHA/成品/新' })]);

    const manual = await t.request('POST', '/api/v1/materials', { token: t.adminToken, body: { name: '手工型号', category: 'ALPHA/成品' } });
    expect(manual.statusCode).toBe(201);
    expect(manual.json()).toMatchObject({ base_id: null, name: '手工型号', category: 'ALPHA/成品' });
    const adopted = await notice({ base_id: 11, name: '手工型号', category: 'ALPHA/成品' });
    expect(adopted.id).toBe(manual.json().id);
    expect((await listed('&keyword=手工')).items).toEqual([expect.objectContaining({ id: manual.json().id, base_id: 11 })]);
  });

  it('creates models by hand for SUPER_ADMIN and SUPERVISOR only; duplicates are 409; bad input 422; nothing written', async () => {
    const supervisor = await t.user('SUPERVISOR');
    const operator = await t.user('OPERATOR');
    const ok = await t.request('POST', '/api/v1/materials', { token: supervisor.token, body: { name: '主管建的', category: 'ALPHA/成品' } });
    expect(ok.statusCode).toBe(201);
    const before = await materialCount();
    const denied = await t.request('POST', '/api/v1/materials', { token: operator.token, body: { name: '操作员建的', category: 'ALPHA/成品' } });
    expect(denied.statusCode).toBe(403);
    const duplicate = await t.request('POST', '/api/v1/materials', { token: t.adminToken, body: { name: '主管建的', category: ' ALPHA/成品 ' } });
    expect(duplicate.statusCode).toBe(409);
    expect(duplicate.json().code).toBe('DUPLICATE');
    const duplicateBase = await t.request('POST', '/api/v1/materials', { token: t.adminToken, body: { name: '另一个', category: 'ALPHA/成品', base_id: 1 } });
    expect(duplicateBase.statusCode).toBe(409);
    for (const body of [{ name: 'x' }, { name: '', category: 'ALPHA/x' }, { name: 'x', category: '///' }, { name: 'x', category: 'ALPHA/x', base_id: 'one' }]) {
      const res = await t.request('POST', '/api/v1/materials', { token: t.adminToken, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    expect(await materialCount()).toBe(before);
  });

  it('keeps hand-made models of other categories out of the list', async () => {
    const res = await t.request('POST', '/api/v1/materials', { token: t.adminToken, body: { name: '外部门', category: 'BETA/ALPHA/成品' } });
    expect(res.statusCode).toBe(201);
    expect((await listed()).items.some((m) => m.id === res.json().id)).toBe(false);
  });
});
