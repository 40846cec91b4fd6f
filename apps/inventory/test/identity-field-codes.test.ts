import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMaterial, stockIn, type MaterialJson, type StockRowJson } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

/**
 * Field codes (contract §3: any suffix other than :operation) open exactly their own fields on every
 * endpoint that answers them: neither the module code nor its :operation stands in for them.
 */
describe('field codes across the endpoints that answer the fields', () => {
  let t: TestInventory;
  let caller: TestUser;
  let material: MaterialJson;
  let row: StockRowJson;

  /** Route codes the caller needs to reach every endpoint below, none of them a field code. */
  const REACH = [
    'material_list', 'material_list:operation', 'inbound_purchase', 'inbound_purchase:operation', 'inbound_purchase:pending_pool',
    'inbound_buy', 'op_borrow_apply', 'outbound_selection', 'outbound_create:operation',
  ];
  const grant = async (codes: string[]) => {
    const res = await t.request('PUT', '/api/v1/permissions/role/SALES', { token: t.adminToken, body: { permissions: codes } });
    expect(res.statusCode).toBe(200);
  };
  const get = async (path: string) => {
    const res = await t.request('GET', path, { token: caller.token });
    expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
    return res.json();
  };

  /** Every answer carrying a stock row or a material, as seen by the caller now. */
  async function answers() {
    const stockRows = {
      detail: await get(`/api/v1/inbound/stock/${row.id}`),
      list: (await get(`/api/v1/inbound/stock/list?keyword=${row.sku}`)).items[0],
      scan: await get(`/api/v1/inbound/stock/scan?barcode=${row.sku}`),
      borrowList: (await get(`/api/v1/borrow/stock-list?keyword=${row.sku}`)).items[0],
      outboundScan: await get(`/api/v1/outbound/scan?barcode=${row.sku}`),
      alternatives: (await get(`/api/v1/outbound/alternatives?base_id=${material.id}`))[0],
    };
    const materials = {
      detail: await get(`/api/v1/inbound/base/${material.id}`),
      list: (await get(`/api/v1/inbound/base?keyword=${encodeURIComponent(material.name)}`)).items[0],
      autoFill: await get(`/api/v1/purchase/auto-fill?base_id=${material.id}`),
    };
    return { stockRows, materials };
  }

  async function exportHeaders(): Promise<string[]> {
    const res = await t.request('GET', `/api/v1/inbound/base/export?keyword=${encodeURIComponent(material.name)}`, { token: caller.token });
    expect(res.statusCode).toBe(200);
    const book = new ExcelJS.Workbook();
    await book.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
    return (book.worksheets[0]!.getRow(1).values as unknown[]).filter((v): v is string => typeof v === 'string');
  }

  beforeAll(async () => {
    t = await buildTestInventory();
    caller = await t.user('SALES', 'ALPHA');
    material = await createMaterial(t, t.adminToken, {
      company_name: 'ALPHA',
      purchaseLink: 'https://shop.example/1',
      referencePrice: 2.5,
      productImageRemark: '图片备注',
      manualLinkRemark: '说明书备注',
    });
    row = await stockIn(t, t.adminToken, { base_id: material.id, company_name: 'ALPHA', unit_cost: 1.25 });
  });
  afterAll(() => t.close());

  it('hides every field-coded field from a holder of the module and :operation codes only', async () => {
    await grant(REACH);
    const { stockRows, materials } = await answers();
    for (const [where, view] of Object.entries(stockRows)) {
      expect(view, where).not.toHaveProperty('unit_cost');
      expect(view, where).not.toHaveProperty('referencePrice');
    }
    for (const [where, view] of Object.entries(materials)) {
      expect(view, where).not.toHaveProperty('referencePrice');
      expect(view, where).not.toHaveProperty('purchaseLink');
    }
    expect(materials.detail).not.toHaveProperty('productImageRemark');
    expect(materials.detail).not.toHaveProperty('manualLinkRemark');
    expect(await exportHeaders()).not.toEqual(expect.arrayContaining(['采购链接']));
  });

  it('opens exactly the fields of the field codes held, everywhere', async () => {
    await grant([...REACH, 'material_list:referencePrice', 'inbound_purchase:unit_price']);
    const { stockRows, materials } = await answers();
    for (const [where, view] of Object.entries(stockRows)) {
      expect(view, where).toMatchObject({ unit_cost: 1.25, referencePrice: 2.5 });
    }
    for (const [where, view] of Object.entries(materials)) {
      expect(view, where).toMatchObject({ referencePrice: 2.5 });
      expect(view, where).not.toHaveProperty('purchaseLink');
    }
    expect(materials.detail).not.toHaveProperty('productImageRemark');
    const headers = await exportHeaders();
    expect(headers).toContain('参考价');
    expect(headers).not.toContain('采购链接');
    expect(headers).not.toContain('产品图片备注');
  });

  it('opens every field of a module to its wildcard', async () => {
    await grant([...REACH, 'material_list:*', 'inbound_purchase:*']);
    const { stockRows, materials } = await answers();
    for (const [where, view] of Object.entries(stockRows)) expect(view, where).toMatchObject({ unit_cost: 1.25, referencePrice: 2.5 });
    expect(materials.detail).toMatchObject({
      referencePrice: 2.5, purchaseLink: 'https://shop.example/1', productImageRemark: '图片备注', manualLinkRemark: '说明书备注',
    });
    expect(await exportHeaders()).toEqual(expect.arrayContaining(['采购链接', '参考价', '产品图片备注', '说明书链接备注']));
  });

  it('hides the fields again on the very next request once the role loses the codes, the cached scanner included', async () => {
    await grant([...REACH, 'material_list:*', 'inbound_purchase:*']);
    expect(await get(`/api/v1/outbound/scan?barcode=${row.sku}`)).toHaveProperty('unit_cost');
    await grant(REACH);
    const scanned = await get(`/api/v1/outbound/scan?barcode=${row.sku}`);
    expect(scanned).not.toHaveProperty('unit_cost');
    expect(scanned).not.toHaveProperty('referencePrice');
    expect(await get(`/api/v1/inbound/base/${material.id}`)).not.toHaveProperty('purchaseLink');
  });
});
