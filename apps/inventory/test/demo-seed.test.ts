import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, queryRows } from '@wms/platform';
import { seedDemoIfEmpty } from '../src/seed/demo.js';
import { buildTestInventory, type TestInventory } from './helpers.js';

describe('demo data', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory();
  });
  afterAll(() => t.close());

  it('loads once into an empty database: two companies, every role, materials and all three stock kinds', async () => {
    expect(await seedDemoIfEmpty(t.service.deps.database)).toBe(true);
    expect(await seedDemoIfEmpty(t.service.deps.database)).toBe(false);
    const q = async (text: string) => ({ rows: await t.service.deps.database.read((db) => queryRows<Record<string, unknown>>(db, sql.raw(text))) });
    const roles = (await q(`select distinct company_name, role from users where company_name is not null`)).rows;
    expect(roles).toHaveLength(10);
    const kinds = (await q(`select distinct source_table from stock_rows order by 1`)).rows.map((r) => (r as unknown as { source_table: string }).source_table);
    expect(kinds).toEqual(['stock_buy', 'stock_product', 'stock_semi']);
    const materials = (await q(`select count(*)::int as n from materials`)).rows[0] as unknown as { n: number };
    expect(materials.n).toBeGreaterThanOrEqual(24);
    const nested = (await q(`select count(*)::int as n from stock_rows where warehouse_location like '%/%/%'`)).rows[0] as unknown as { n: number };
    expect(nested.n).toBeGreaterThan(0);

    const login = await t.login('alpha_wh', DEMO_PASSWORD);
    expect(login.statusCode).toBe(200);
    expect(login.json().user).toMatchObject({ role: 'WAREHOUSE_MGR', company_name: 'ALPHA' });

    // published BOMs, and finished products that name the version they were built from
    const boms = await t.request('GET', '/api/v1/bom/list', { token: login.json().token });
    expect(boms.json().total).toBeGreaterThanOrEqual(2);
    expect(boms.json().items[0].children.length).toBeGreaterThan(0);
    const built = (await q(`select count(*)::int as n from stock_rows where bom_version_id is not null`)).rows[0] as unknown as { n: number };
    expect(built.n).toBeGreaterThan(0);
  });
});
