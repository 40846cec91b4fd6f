import ExcelJS from 'exceljs';
import { beforeAll, describe, expect, it } from 'vitest';
import { createMaterial, holdQuantityDirectly, stockIn, useTestApp, type MaterialJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { approvedPurchase, decideOk, mailsMentioning, PURCHASE, purchaseCast, submitOk, type PurchaseCast } from './purchase-fixtures.js';
import { eventually, setEmail } from './returns-fixtures.js';

let t: TestInventory;
let c: PurchaseCast;
useTestApp(purchaseCast, (built) => ({ t, w: c } = built));

const BASE = '/api/v1/inbound/base';

interface PoolItem {
  base_id: number;
  stock_quantity: number;
  available_quantity: number;
  in_transit_quantity: number;
  pending_purchase_quantity: number;
  effective_supply: number;
  alert_level: string;
  target_quantity: number | null;
  suggested_qty: number;
  supplier: { id: number; name: string; lead_time_days: number | null } | null;
  [field: string]: unknown;
}

const pool = async (query = '', token = c.mgr.token): Promise<PoolItem[]> => {
  const response = await t.request('GET', `${PURCHASE}/pending-pool?limit=200${query}`, { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().items as PoolItem[];
};
const poolItem = async (baseId: number, token = c.mgr.token) => (await pool('', token)).find((item) => item.base_id === baseId);

const listed = async (query: string, token = c.mgr.token) => {
  const response = await t.request('GET', `${BASE}?limit=200&${query}`, { token });
  expect(response.statusCode, response.body).toBe(200);
  return response.json().items as Array<MaterialJson & { alert_level: string; effective_supply: number; stock_quantity: number; available_quantity: number; in_transit_quantity: number }>;
};

/** A material of ALPHA with the given thresholds and one stock_buy row per quantity. */
async function materialAt(name: string, thresholds: Record<string, number | null>, quantities: number[]): Promise<MaterialJson> {
  const material = await createMaterial(t, c.mgr.token, { name, category: 'ALPHA/补货', ...thresholds });
  for (const quantity of quantities) await stockIn(t, c.inbound.token, { base_id: material.id, in_quantity: quantity });
  return material;
}

describe('the one supply rule: material list, pending pool and their agreement', () => {
  let atYellow: MaterialJson;
  let atRed: MaterialJson;
  let above: MaterialJson;
  let belowRed: MaterialJson;
  let noThresholds: MaterialJson;

  beforeAll(async () => {
    atYellow = await materialAt('边界黄', { red_threshold: 5, yellow_threshold: 10, target_threshold: 20 }, [6, 4]);
    atRed = await materialAt('边界红', { red_threshold: 5, yellow_threshold: 10, target_threshold: 20 }, [5]);
    above = await materialAt('边界上方', { red_threshold: 5, yellow_threshold: 10, target_threshold: 20 }, [10.5]);
    belowRed = await materialAt('红线以下', { red_threshold: 5, yellow_threshold: 10 }, [1]);
    noThresholds = await materialAt('无阈值', {}, []);
  });

  it('puts a supply equal to a threshold in (<=), and the list’s alert level agrees with the pool on the same data', async () => {
    const materials = [atYellow, atRed, above, belowRed, noThresholds];
    const list = await listed('category=ALPHA/补货');
    const items = await pool('&category=ALPHA/补货');
    for (const material of materials) {
      const row = list.find((item) => item.id === material.id)!;
      const inPool = items.find((item) => item.base_id === material.id);
      expect(row.alert_level, material.name).toBe(inPool?.alert_level ?? 'none');
      if (inPool) expect(inPool.effective_supply).toBe(row.effective_supply);
    }
    expect(list.find((item) => item.id === atYellow.id)).toMatchObject({ stock_quantity: 10, available_quantity: 10, in_transit_quantity: 0, effective_supply: 10, alert_level: 'yellow' });
    expect(list.find((item) => item.id === atRed.id)!.alert_level).toBe('red');
    expect(list.find((item) => item.id === above.id)!.alert_level).toBe('none');
    expect(items.map((item) => item.base_id)).toEqual([atRed.id, belowRed.id, atYellow.id]); // red first, then yellow
    expect(items.find((item) => item.base_id === atYellow.id)).toMatchObject({ target_quantity: 20, suggested_qty: 10 });
    // no target: the yellow threshold is the target
    expect(items.find((item) => item.base_id === belowRed.id)).toMatchObject({ target_quantity: 10, suggested_qty: 9 });
  });

  it('filters the material list by alert level and refuses an unknown level', async () => {
    expect((await listed('category=ALPHA/补货&alert_level=red')).map((item) => item.id)).toEqual([atRed.id, belowRed.id]);
    expect((await listed('category=ALPHA/补货&alert_level=yellow')).map((item) => item.id)).toEqual([atYellow.id]);
    expect((await listed('category=ALPHA/补货&alert_level=none')).map((item) => item.id)).toEqual([above.id, noThresholds.id]);
    const page = await t.request('GET', `${BASE}?category=ALPHA/补货&alert_level=red&limit=1`, { token: c.sales.token });
    expect(page.json()).toMatchObject({ total: 2, limit: 1 });
    const bad = await t.request('GET', `${BASE}?alert_level=orange`, { token: c.sales.token });
    expect(bad.statusCode).toBe(400);
    expect(bad.json().code).toBe('VALIDATION_FAILED');
    const detail = await t.request('GET', `${BASE}/${atYellow.id}`, { token: c.sales.token });
    expect(detail.json()).toMatchObject({ effective_supply: 10, alert_level: 'yellow' });
  });

  it('exports the supply columns with the list’s values and filter', async () => {
    const response = await t.request('GET', `${BASE}/export?category=ALPHA/补货&alert_level=yellow`, { token: c.mgr.token });
    expect(response.statusCode).toBe(200);
    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(response.rawPayload as unknown as ArrayBuffer);
    const rows: unknown[][] = [];
    workbook.worksheets[0]!.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
    const headers = rows[0] as string[];
    expect(rows).toHaveLength(2);
    const row = Object.fromEntries(headers.map((header, i) => [header, rows[1]![i]]));
    expect(row).toMatchObject({ 物料ID: atYellow.id, 实物库存: 10, 可用数量: 10, 在途数量: 0, 有效库存: 10, 预警级别: 'yellow' });
  });
});

describe('GET /purchase/pending-pool', () => {
  it('counts every row but 不良品 (frozen and held included) plus approved purchases; pending ones do not count', async () => {
    const material = await materialAt('有效库存件', { yellow_threshold: 10, target_threshold: 30 }, [3, 100]);
    const [small, defective] = await Promise.all([
      t.request('GET', `/api/v1/inbound/stock?base_id=${material.id}`, { token: c.mgr.token }).then((r) => r.json().items as Array<{ id: number; stock_quantity: number }>),
    ]).then(([rows]) => [rows.find((row) => row.stock_quantity === 3)!, rows.find((row) => row.stock_quantity === 100)!]);
    await t.request('POST', `/api/v1/inbound/stock/${defective!.id}/change-status`, { token: c.mgr.token, body: { status: '不良品' } });
    const frozen = await stockIn(t, c.inbound.token, { base_id: material.id, in_quantity: 2 });
    await t.request('POST', `/api/v1/inbound/stock/${frozen.id}/change-status`, { token: c.mgr.token, body: { status: '冻结' } });
    await holdQuantityDirectly(t, small!.id, 1); // borrowed or reserved: still physical stock
    await submitOk(t, c.sales.token, [{ base_id: material.id, quantity: 50 }]);
    expect(await poolItem(material.id)).toMatchObject({ stock_quantity: 5, available_quantity: 2, in_transit_quantity: 0, pending_purchase_quantity: 50, effective_supply: 5, suggested_qty: 25 });

    await approvedPurchase(c, material.id, 4);
    expect(await poolItem(material.id)).toMatchObject({ in_transit_quantity: 4, effective_supply: 9, alert_level: 'yellow', suggested_qty: 21 });
    await approvedPurchase(c, material.id, 1);
    expect(await poolItem(material.id)).toMatchObject({ effective_supply: 10, suggested_qty: 20 });
    await approvedPurchase(c, material.id, 0.5);
    expect(await poolItem(material.id)).toBeUndefined();
  });

  it('suggests at least 1, even when the supply already reaches the target', async () => {
    const material = await materialAt('目标等于阈值', { yellow_threshold: 4 }, [4]);
    expect(await poolItem(material.id)).toMatchObject({ effective_supply: 4, target_quantity: 4, suggested_qty: 1 });
  });

  it('names the supplier of the newest approved or completed purchase of the material', async () => {
    const material = await materialAt('供应商建议件', { yellow_threshold: 100 }, [1]);
    const supplier = async (name: string, lead = 7) => {
      const response = await t.request('POST', '/api/v1/suppliers', { token: c.mgr.token, body: { name, lead_time_days: lead } });
      expect(response.statusCode, response.body).toBe(201);
      return response.json() as { id: number; name: string };
    };
    const [old, recent, unapproved] = [await supplier('老供应商'), await supplier('新供应商', 3), await supplier('待批供应商')];
    expect((await poolItem(material.id))!.supplier).toBeNull();
    await approvedPurchase(c, material.id, 1, { supplier_id: old.id });
    const second = await approvedPurchase(c, material.id, 1, { supplier_id: recent.id });
    await submitOk(t, c.sales.token, [{ base_id: material.id, quantity: 1, supplier_id: unapproved.id }]);
    expect((await poolItem(material.id))!.supplier).toEqual({ id: recent.id, name: '新供应商', lead_time_days: 3 });
    await stockIn(t, c.inbound.token, { base_id: material.id, in_quantity: 1, request_id: second.id });
    expect((await poolItem(material.id))!.supplier).toMatchObject({ id: recent.id });
  });

  it('shows referencePrice only with material_list:referencePrice, needs the pool code, and stays in the company', async () => {
    const material = await createMaterial(t, c.mgr.token, { name: '参考价件', category: 'ALPHA/补货2', yellow_threshold: 1, referencePrice: 2.5 });
    expect(await poolItem(material.id)).toMatchObject({ referencePrice: 2.5, purchaseLink: null });
    expect((await t.request('GET', `${PURCHASE}/pending-pool`, { token: c.sales.token })).statusCode).toBe(403);
    expect((await t.request('GET', `${PURCHASE}/pending-pool`, { token: c.inbound.token })).statusCode).toBe(403);
    expect(await poolItem(material.id, c.betaMgr.token)).toBeUndefined();

    const buyer = await t.user('INBOUND', 'ALPHA');
    const grant = await t.request('PUT', '/api/v1/permissions/role/INBOUND', {
      token: t.adminToken,
      body: { permissions: ['inbound_buy', 'inbound_stock:operation', 'inbound_purchase:pending_pool'] },
    });
    expect(grant.statusCode, grant.body).toBe(200);
    const seen = await poolItem(material.id, buyer.token);
    expect(seen).toMatchObject({ base_id: material.id, suggested_qty: 1 });
    expect(seen).not.toHaveProperty('referencePrice');
    expect(seen).not.toHaveProperty('purchaseLink');
    const bad = await t.request('GET', `${PURCHASE}/pending-pool?alert_level=none`, { token: c.mgr.token });
    expect(bad.statusCode).toBe(400);
  });
});

describe('low-stock alert on the effective supply', () => {
  it('counts in-transit purchases: no mail while an approved purchase covers the threshold, a mail once it is closed', async () => {
    await setEmail(t, c.mgr, 'buyer@alpha.example');
    const material = await materialAt('在途预警件', { yellow_threshold: 5 }, [8]);
    const purchase = await approvedPurchase(c, material.id, 10);
    const row = (await t.request('GET', `/api/v1/inbound/stock?base_id=${material.id}`, { token: c.mgr.token })).json().items[0] as { id: number };
    const lowered = await t.request('PUT', `/api/v1/inbound/stock/${row.id}`, { token: c.inbound.token, body: { stock_quantity: 2 } });
    expect(lowered.statusCode, lowered.body).toBe(200);
    await new Promise((resolve) => setTimeout(resolve, 300));
    expect(await mailsMentioning(t, 'low_stock', material.name)).toEqual([]);

    await decideOk(t, c.mgr.token, purchase.id, 'close');
    const mails = await eventually(() => mailsMentioning(t, 'low_stock', material.name), (found) => found.length > 0);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('黄色');
    expect(mails[0]!.body).toContain('在途 0');
  });

  const rowOf = async (material: MaterialJson) =>
    (await t.request('GET', `/api/v1/inbound/stock?base_id=${material.id}`, { token: c.mgr.token })).json().items[0] as { id: number };
  const lowStockMails = (material: MaterialJson, count: number) =>
    eventually(() => mailsMentioning(t, 'low_stock', material.name), (found) => found.length >= count);
  const ok = (response: { statusCode: number; body: string }) => expect(response.statusCode, response.body).toBe(200);

  it('mails once per crossing, whatever moved the supply: an edit back up re-arms it, so the next fall mails again', async () => {
    await setEmail(t, c.mgr, 'buyer@alpha.example');
    const material = await materialAt('反复预警件', { yellow_threshold: 5 }, [10]);
    const row = await rowOf(material);
    const edit = (quantity: number) => t.request('PUT', `/api/v1/inbound/stock/${row.id}`, { token: c.mgr.token, body: { stock_quantity: quantity } });
    ok(await edit(2));
    expect(await lowStockMails(material, 1)).toHaveLength(1);
    ok(await edit(20));
    ok(await edit(2));
    expect(await lowStockMails(material, 2)).toHaveLength(2);
  });

  it('counts a move into 不良品 from 冻结 as a fall, and a move out of it as a recovery', async () => {
    await setEmail(t, c.mgr, 'buyer@alpha.example');
    const material = await materialAt('冻结转不良件', { yellow_threshold: 5 }, [10]);
    const row = await rowOf(material);
    const status = (value: string) => t.request('POST', `/api/v1/inbound/stock/${row.id}/change-status`, { token: c.mgr.token, body: { status: value } });
    ok(await status('冻结'));
    ok(await status('不良品'));
    expect(await lowStockMails(material, 1)).toHaveLength(1);
    ok(await status('在库'));
    ok(await status('不良品'));
    expect(await lowStockMails(material, 2)).toHaveLength(2);
  });

  it('checks after a threshold edit: a supply that is now at or below the new threshold is a crossing', async () => {
    await setEmail(t, c.mgr, 'buyer@alpha.example');
    const material = await materialAt('阈值上调件', { yellow_threshold: 2 }, [4]);
    ok(await t.request('PUT', `${BASE}/${material.id}`, { token: c.mgr.token, body: { yellow_threshold: 4 } }));
    const mails = await lowStockMails(material, 1);
    expect(mails).toHaveLength(1);
    expect(mails[0]!.subject).toContain('黄色');
  });
});
