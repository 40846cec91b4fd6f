/**
 * Contract §8: every list takes page, limit, keyword, start_date and end_date (a bare date is a Beijing day,
 * the end date includes its whole day; decisions Outbound #13). These are the inventory lists that did not
 * take them all: each must filter on its natural time column (or calendar-day column) and answer a bad date
 * with 400 naming the field, and its keyword must narrow case-insensitively.
 */
import { beforeAll, describe, expect, it } from 'vitest';
import { beijingDate, beijingMidnight } from '@wms/platform';
import { createMaterial, stockIn, useTestApp, type MaterialJson } from './fixtures.js';
import type { TestInventory, TestUser } from './helpers.js';

const API = '/api/v1';
let t: TestInventory;
let mgr: TestUser;
useTestApp(
  async (app) => ({ mgr: await app.user('WAREHOUSE_MGR', 'ALPHA', { name: '清单经理' }) }),
  (built) => ({ t, w: { mgr } } = built),
);

const today = beijingDate(new Date());
const dayOffset = (days: number) => beijingDate(new Date(beijingMidnight(today).getTime() + days * 24 * 3600e3));
const tomorrow = dayOffset(1);

interface PageJson<T = Record<string, unknown>> {
  items: T[];
  total: number;
  page: number;
  limit: number;
}

async function list<T = Record<string, unknown>>(path: string, query: Record<string, string | number>, token = t.adminToken): Promise<PageJson<T>> {
  const separator = path.includes('?') ? '&' : '?';
  const search = new URLSearchParams(Object.entries(query).map(([k, v]) => [k, String(v)])).toString();
  const response = await t.request('GET', `${API}${path}${search ? separator + search : ''}`, { token });
  expect(response.statusCode, `${path} ${search}: ${response.body}`).toBe(200);
  return response.json() as PageJson<T>;
}

/** The row is in the list for bounds around its day and out of it for bounds that exclude the day. */
async function expectDateBounds(path: string, has: (items: Record<string, unknown>[]) => boolean, day = today) {
  const before = beijingDate(new Date(beijingMidnight(day).getTime() - 24 * 3600e3));
  const after = beijingDate(new Date(beijingMidnight(day).getTime() + 24 * 3600e3));
  expect(has((await list(path, { start_date: day, end_date: day, limit: 200 })).items), `${path} within ${day}`).toBe(true);
  expect(has((await list(path, { start_date: after, limit: 200 })).items), `${path} from ${after}`).toBe(false);
  expect(has((await list(path, { end_date: before, limit: 200 })).items), `${path} until ${before}`).toBe(false);
  for (const field of ['start_date', 'end_date']) {
    const separator = path.includes('?') ? '&' : '?';
    const bad = await t.request('GET', `${API}${path}${separator}${field}=2024-02-30`, { token: t.adminToken });
    expect(bad.statusCode, `${path} bad ${field}`).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field });
  }
}

async function expectKeyword(path: string, keyword: string, has: (items: Record<string, unknown>[]) => boolean) {
  expect(has((await list(path, { keyword, limit: 200 })).items), `${path} keyword ${keyword}`).toBe(true);
  expect(has((await list(path, { keyword: `${keyword}-无此项`, limit: 200 })).items), `${path} other keyword`).toBe(false);
}

const withId = (id: unknown, key = 'id') => (items: Record<string, unknown>[]) => items.some((item) => item[key] === id);

describe('lists that gained start_date / end_date (created_at)', () => {
  it('GET /users filters on the account creation time', async () => {
    const user = await t.user('SALES', 'ALPHA', { name: 'Listed UserQ' });
    await expectDateBounds('/users', withId(user.id));
    await expectKeyword('/users', 'listed userq', withId(user.id));
    // a keyword of spaces is no keyword, as on every list
    expect(withId(user.id)((await list('/users', { keyword: '   ', limit: 200 })).items)).toBe(true);
  });

  it('GET /inbound/base (and its export) filters on the material creation time', async () => {
    const material = await createMaterial(t, mgr.token, { name: 'DateMat-Alpha' });
    await expectDateBounds('/inbound/base', withId(material.id));
    await expectKeyword('/inbound/base', 'datemat-ALPHA', withId(material.id));
    const bad = await t.request('GET', `${API}/inbound/base/export?end_date=nope`, { token: mgr.token });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ field: 'end_date' });
  });

  it('GET /suppliers filters on the supplier creation time', async () => {
    const created = await t.request('POST', `${API}/suppliers`, { token: mgr.token, body: { name: 'Dated Supplier Co', contact: '王' } });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    await expectDateBounds('/suppliers', withId(id));
    await expectKeyword('/suppliers', 'DATED supplier', withId(id));
  });
});

describe('GET /purchase/approved-unstocked', () => {
  it('takes start_date / end_date on purchase_date like GET /purchase', async () => {
    const material = await createMaterial(t, mgr.token, { name: '待入库采购物料' });
    const submitted = await t.request('POST', `${API}/purchase`, {
      token: mgr.token,
      body: { items: [{ base_id: material.id, quantity: 3, purchase_date: '2024-05-01', remark: '日期筛选' }] },
    });
    expect(submitted.statusCode, submitted.body).toBe(201);
    const id = (submitted.json() as { requests: { id: number }[] }).requests[0]!.id;
    const approved = await t.request('PATCH', `${API}/purchase/${id}/approve`, { token: mgr.token, body: { action: 'approve' } });
    expect(approved.statusCode, approved.body).toBe(200);
    await expectDateBounds('/purchase/approved-unstocked', withId(id), '2024-05-01');
  });
});

describe('stock move histories', () => {
  let material: MaterialJson;
  let rowId: number;
  beforeAll(async () => {
    material = await createMaterial(t, mgr.token, { name: 'MoveMat-Kw', spec_model: 'MV-SPEC-9' });
    const row = await stockIn(t, mgr.token, { base_id: material.id, in_quantity: 5, warehouse_location: 'KW/01' });
    rowId = row.id;
    const moved = await t.request('POST', `${API}/stock/${rowId}/move`, { token: mgr.token, body: { to_location: 'KW/Dest-7' } });
    expect(moved.statusCode, moved.body).toBe(200);
  });

  it('GET /stock/moves takes keyword (material, spec, location, sku, operator) and dates on moved_at', async () => {
    const hasRow = withId(rowId, 'stock_id');
    await expectKeyword('/stock/moves', 'movemat-kw', hasRow);
    await expectKeyword('/stock/moves', 'mv-spec', hasRow);
    await expectKeyword('/stock/moves', 'kw/dest-7', hasRow);
    await expectKeyword('/stock/moves', '清单经理', hasRow);
    await expectDateBounds('/stock/moves', hasRow);
  });

  it('GET /stock/<id>/moves filters the same and stays 200 (empty) when the filter matches nothing', async () => {
    const hasRow = withId(rowId, 'stock_id');
    await expectKeyword(`/stock/${rowId}/moves`, 'KW/DEST', hasRow);
    await expectDateBounds(`/inbound/stock/${rowId}/moves`, hasRow);
    expect((await list(`/stock/${rowId}/moves`, { start_date: tomorrow })).total).toBe(0);
  });
});

describe('BOM lists', () => {
  it('versions and built serials take keyword and dates; the BOM list takes dates', async () => {
    const parent = await createMaterial(t, mgr.token, { name: 'BOM 整机 DT', category: 'ALPHA/成品' });
    const child = await createMaterial(t, mgr.token, { name: 'BOM 子件 DT' });
    const published = await t.request('POST', `${API}/bom/save`, {
      token: t.adminToken,
      body: { parent_id: parent.id, remark: 'Release Candidate', items: [{ child_id: child.id, quantity: 1 }] },
    });
    expect(published.statusCode, published.body).toBe(200);
    const versionId = (published.json() as { bom_version_id: number }).bom_version_id;

    await expectDateBounds('/bom/list', withId(parent.id, 'parent_id'));
    await expectKeyword(`/bom/${parent.id}/versions`, 'release CANDIDATE', withId(versionId, 'bom_version_id'));
    await expectDateBounds(`/bom/${parent.id}/versions`, withId(versionId, 'bom_version_id'));

    const built = await stockIn(t, mgr.token, {
      source_table: 'stock_product', base_id: parent.id, in_quantity: 1, serial_number: 'SN-DT-Built-1',
      in_date: '2024-06-15', bom_version_id: versionId,
    });
    const hasBuilt = withId(built.id, 'stock_id');
    await expectKeyword(`/bom/versions/${versionId}/serials`, 'sn-dt-built', hasBuilt);
    await expectDateBounds(`/bom/versions/${versionId}/serials`, hasBuilt, '2024-06-15');
  });
});

describe('stocktake lists of counts', () => {
  it('draft/list and variance-report take keyword and scan-time dates; all-items takes keyword', async () => {
    const material = await createMaterial(t, mgr.token, { name: 'CountMat-Zq', spec_model: 'CZ-1' });
    const other = await createMaterial(t, mgr.token, { name: '别的盘点物料' });
    const row = await stockIn(t, mgr.token, { base_id: material.id, in_quantity: 4, warehouse_location: 'PD/Kw-1' });
    const otherRow = await stockIn(t, mgr.token, { base_id: other.id, in_quantity: 2, warehouse_location: 'PD/Other' });
    const session = await t.request('POST', `${API}/draft/start-new`, { token: mgr.token, body: { mode: 'open', scope_type: 'full' } });
    expect(session.statusCode, session.body).toBeLessThan(300);
    const sessionId = (session.json() as { session_id: number }).session_id;
    for (const [barcode, quantity] of [[row.sku, 4], [otherRow.sku, 1]] as const) {
      const added = await t.request('POST', `${API}/draft/add`, { token: mgr.token, body: { session_id: sessionId, barcode, quantity } });
      expect(added.statusCode, added.body).toBeLessThan(300);
    }
    const hasRow = withId(row.id, 'stock_id');
    const drafts = `/draft/list?session_id=${sessionId}`;
    await expectKeyword(drafts, 'countmat-zq', hasRow);
    await expectKeyword(drafts, 'pd/kw', hasRow);
    expect((await list(drafts, { keyword: 'countmat-zq' }, mgr.token)).total).toBe(1);
    await expectDateBounds(drafts, hasRow);

    const variance = `/variance-report?session_id=${sessionId}`;
    await expectKeyword(variance, 'CZ-1', hasRow);
    expect((await list(variance, { keyword: 'cz-1' })).total).toBe(1);
    await expectDateBounds(variance, hasRow);

    const all = await list(`/stocktake/all-items?session_id=${sessionId}`, { keyword: 'countmat-ZQ' }, mgr.token);
    expect(all.items.map((item) => item.stock_id)).toEqual([row.id]);
  });
});
