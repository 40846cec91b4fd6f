import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { materials } from '../src/db/schema/index.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

const BASE = '/api/v1/inbound/base';

describe('material spec suggestions and category summary', () => {
  let t: TestInventory;
  let alpha: TestUser;
  let beta: TestUser;

  beforeAll(async () => {
    t = await buildTestInventory();
    alpha = await t.user('WAREHOUSE_MGR', 'ALPHA');
    beta = await t.user('WAREHOUSE_MGR', 'BETA');
  });
  afterAll(() => t.close());

  const create = async (token: string, body: Record<string, unknown>) => {
    const res = await t.request('POST', BASE, { token, body });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: number };
  };
  const suggest = async (token: string, query: string) => {
    const res = await t.request('GET', `${BASE}/spec-suggestions?${query}`, { token });
    expect(res.statusCode, res.body).toBe(200);
    return res.json() as string[];
  };
  /** Writes a material behind the service's back, so the cache is not told about it. */
  const insertBehindTheCache = (specModel: string) =>
    t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
      tx.insert(materials).values({ name: '联想', specModel, category: 'SUG', companyName: 'ALPHA' }),
    );

  describe('spec suggestions', () => {
    it('answers distinct spec models of the caller company, matched case-insensitively', async () => {
      await create(alpha.token, { name: '联想', spec_model: 'SUG-M3', category: 'SUG' });
      await create(alpha.token, { name: '联想', spec_model: 'SUG-M3', category: 'SUG' });
      await create(alpha.token, { name: '其他', spec_model: 'SUG-M4', category: 'SUG' });
      await create(beta.token, { name: '联想', spec_model: 'SUG-BETA', category: 'SUG' });
      expect(await suggest(alpha.token, 'keyword=sug-m')).toEqual(['SUG-M3', 'SUG-M4']);
      expect(await suggest(alpha.token, `keyword=sug&name=${encodeURIComponent('联想')}`)).toEqual(['SUG-M3']);
      expect(await suggest(beta.token, 'keyword=sug')).toEqual(['SUG-BETA']);
      expect(await suggest(t.adminToken, 'keyword=sug&company=BETA')).toEqual(['SUG-BETA']);
    });

    it('serves a repeated query from the cache and clears it on create', async () => {
      expect(await suggest(alpha.token, 'keyword=cache-c')).toEqual([]);
      await insertBehindTheCache('CACHE-C-HIDDEN');
      expect(await suggest(alpha.token, 'keyword=cache-c')).toEqual([]);
      await create(alpha.token, { name: '新建', spec_model: 'CACHE-C-NEW', category: 'SUG' });
      expect((await suggest(alpha.token, 'keyword=cache-c')).sort()).toEqual(['CACHE-C-HIDDEN', 'CACHE-C-NEW']);
    });

    it('clears the cache on update', async () => {
      const material = await create(alpha.token, { name: '更新', spec_model: 'CACHE-U-OLD', category: 'SUG' });
      expect(await suggest(alpha.token, 'keyword=cache-u')).toEqual(['CACHE-U-OLD']);
      await insertBehindTheCache('CACHE-U-HIDDEN');
      expect(await suggest(alpha.token, 'keyword=cache-u')).toEqual(['CACHE-U-OLD']);
      await t.request('PUT', `${BASE}/${material.id}`, { token: alpha.token, body: { spec_model: 'CACHE-U-NEW' } });
      expect((await suggest(alpha.token, 'keyword=cache-u')).sort()).toEqual(['CACHE-U-HIDDEN', 'CACHE-U-NEW']);
    });

    it('clears the cache on delete', async () => {
      const material = await create(alpha.token, { name: '删除', spec_model: 'CACHE-D-GONE', category: 'SUG' });
      expect(await suggest(alpha.token, 'keyword=cache-d')).toEqual(['CACHE-D-GONE']);
      await insertBehindTheCache('CACHE-D-HIDDEN');
      await t.request('DELETE', `${BASE}/${material.id}`, { token: alpha.token });
      expect(await suggest(alpha.token, 'keyword=cache-d')).toEqual(['CACHE-D-HIDDEN']);
    });

    it('forgets a cached answer after one hour', async () => {
      expect(await suggest(alpha.token, 'keyword=cache-t')).toEqual([]);
      await insertBehindTheCache('CACHE-T-HIDDEN');
      vi.useFakeTimers({ toFake: ['Date'] });
      try {
        vi.setSystemTime(Date.now() + 59 * 60 * 1000);
        expect(await suggest(alpha.token, 'keyword=cache-t')).toEqual([]);
        vi.setSystemTime(Date.now() + 2 * 60 * 1000);
        expect(await suggest(alpha.token, 'keyword=cache-t')).toEqual(['CACHE-T-HIDDEN']);
      } finally {
        vi.useRealTimers();
      }
    });

    it('keeps the cache when a write is refused', async () => {
      expect(await suggest(alpha.token, 'keyword=cache-r')).toEqual([]);
      await insertBehindTheCache('CACHE-R-HIDDEN');
      const refused = await t.request('POST', BASE, { token: alpha.token, body: { name: '坏', category: 'SUG', red_threshold: -1 } });
      expect(refused.statusCode).toBe(400);
      expect(await suggest(alpha.token, 'keyword=cache-r')).toEqual([]);
    });

    it('starts empty in a service built after this one closed (the cache lives in the process)', async () => {
      const first = await buildTestInventory();
      const firstUser = await first.user('WAREHOUSE_MGR', 'ALPHA');
      await first.request('POST', BASE, { token: firstUser.token, body: { name: '旧', spec_model: 'CACHE-P-FIRST', category: 'SUG' } });
      const cached = await first.request('GET', `${BASE}/spec-suggestions?keyword=cache-p`, { token: firstUser.token });
      expect(cached.json()).toEqual(['CACHE-P-FIRST']);
      await first.close();

      const second = await buildTestInventory();
      try {
        const secondUser = await second.user('WAREHOUSE_MGR', 'ALPHA');
        const fresh = await second.request('GET', `${BASE}/spec-suggestions?keyword=cache-p`, { token: secondUser.token });
        expect(fresh.json()).toEqual([]);
      } finally {
        await second.close();
      }
    });
  });

  it('looks at no more than the 10,000 newest matching rows', async () => {
    const scanner = await t.user('WAREHOUSE_MGR', 'SCAN');
    await t.service.deps.database.transaction({ actor: 'test' }, async (tx) => {
      await tx.insert(materials).values({ name: '扫描', specModel: 'SCAN-OLDEST', category: 'SCAN', companyName: 'SCAN' });
      await tx.execute(sql`insert into materials (name, spec_model, category, company_name)
        select '扫描', 'SCAN-NEW', 'SCAN', 'SCAN' from generate_series(1, 10000)`);
    });
    expect(await suggest(scanner.token, 'keyword=scan-')).toEqual(['SCAN-NEW']);
  });

  describe('category summary', () => {
    beforeAll(async () => {
      for (const category of ['研发/电子', '研发/电子', '研发/机械', '生产/包装']) {
        await create(alpha.token, { name: '统计', category, company_name: 'IGNORED' });
      }
      await create(beta.token, { name: '统计', category: '研发/电子' });
    });

    it('counts per full path and per top-level segment within the caller company', async () => {
      const res = await t.request('GET', `${BASE}/ext-summary`, { token: alpha.token });
      expect(res.statusCode, res.body).toBe(200);
      const summary = res.json();
      expect(summary.categories).toEqual(
        expect.arrayContaining([
          { category: '研发/电子', count: 2 },
          { category: '研发/机械', count: 1 },
          { category: '生产/包装', count: 1 },
        ]),
      );
      expect(summary.top_level).toEqual(expect.arrayContaining([{ category: '研发', count: 3 }, { category: '生产', count: 1 }]));
      const sum = (list: { count: number }[]) => list.reduce((n, entry) => n + entry.count, 0);
      expect(summary.total).toBe(sum(summary.categories));
      expect(summary.total).toBe(sum(summary.top_level));
    });

    it('ignores the company parameter of a caller that is not cross-domain', async () => {
      const asked = (await t.request('GET', `${BASE}/ext-summary?company=BETA`, { token: alpha.token })).json();
      expect(asked.categories).toContainEqual({ category: '研发/电子', count: 2 });
      const beta = (await t.request('GET', `${BASE}/ext-summary?company=BETA`, { token: t.adminToken })).json();
      expect(beta.total).toBe(2);
      expect(beta.categories).toHaveLength(2);
      expect(beta.categories).toEqual(expect.arrayContaining([{ category: 'SUG', count: 1 }, { category: '研发/电子', count: 1 }]));
      expect(beta.top_level).toEqual(expect.arrayContaining([{ category: 'SUG', count: 1 }, { category: '研发', count: 1 }]));
    });
  });
});
