import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';

const BASE = '/api/v1/inbound/base';
const GUARDED = ['purchaseLink', 'referencePrice', 'productImageRemark', 'manualLinkRemark'] as const;
type Guarded = (typeof GUARDED)[number];

/** Each field code and the fields it opens (spec 2.3). */
const FIELD_CODES: { code: string; fields: Guarded[] }[] = [
  { code: 'material_list:purchaseLink', fields: ['purchaseLink'] },
  { code: 'material_list:referencePrice', fields: ['referencePrice'] },
  { code: 'material_list:remark_edit', fields: ['productImageRemark', 'manualLinkRemark'] },
];

const FIRST_VALUES = { purchaseLink: 'https://old.example', referencePrice: 10.5, productImageRemark: '旧图片', manualLinkRemark: '旧说明书' };
const SECOND_VALUES = { purchaseLink: 'https://new.example', referencePrice: 99.99, productImageRemark: '新图片', manualLinkRemark: '新说明书' };

describe('material field permissions', () => {
  let t: TestInventory;
  /** INBOUND by default holds material_list:operation and no field code. */
  let plainWriter: TestUser;
  /** WAREHOUSE_MGR holds material_list:* (every field). */
  let manager: TestUser;
  /** SUPERVISOR: regranted per test to craft exact field codes. */
  let crafted: TestUser;

  beforeAll(async () => {
    t = await buildTestInventory();
    plainWriter = await t.user('INBOUND', 'ALPHA');
    manager = await t.user('WAREHOUSE_MGR', 'ALPHA');
    crafted = await t.user('SUPERVISOR', 'ALPHA');
  });
  afterAll(() => t.close());

  const grantSupervisor = async (permissions: string[]) => {
    const res = await t.request('PUT', '/api/v1/permissions/role/SUPERVISOR', { token: t.adminToken, body: { permissions } });
    expect(res.statusCode, res.body).toBe(200);
  };
  const createAsAdmin = async (extra: Record<string, unknown> = {}) => {
    const res = await t.request('POST', BASE, {
      token: t.adminToken,
      body: { name: '字段物料', category: '字段', company_name: 'ALPHA', remark: '原备注', ...FIRST_VALUES, ...extra },
    });
    expect(res.statusCode, res.body).toBe(201);
    return res.json() as { id: number } & Record<string, unknown>;
  };
  const readAsAdmin = async (id: number) => (await t.request('GET', `${BASE}/${id}`, { token: t.adminToken })).json();

  describe('reading', () => {
    it('leaves out every guarded field for a caller without the field codes', async () => {
      const material = await createAsAdmin();
      const one = (await t.request('GET', `${BASE}/${material.id}`, { token: plainWriter.token })).json();
      const listed = (await t.request('GET', `${BASE}?keyword=字段物料`, { token: plainWriter.token })).json().items[0];
      for (const view of [one, listed]) {
        for (const field of GUARDED) expect(view).not.toHaveProperty(field);
        expect(view).toMatchObject({ name: '字段物料', remark: '原备注' });
      }
    });

    it('shows every guarded field to material_list:* holders and SUPER_ADMIN', async () => {
      const material = await createAsAdmin();
      for (const token of [manager.token, t.adminToken]) {
        expect((await t.request('GET', `${BASE}/${material.id}`, { token })).json()).toMatchObject(FIRST_VALUES);
      }
    });

    it('opens each field with its own code only', async () => {
      const material = await createAsAdmin();
      for (const { code, fields } of FIELD_CODES) {
        await grantSupervisor([code]);
        const view = (await t.request('GET', `${BASE}/${material.id}`, { token: crafted.token })).json();
        for (const field of GUARDED) {
          if (fields.includes(field)) expect(view[field], `${code} → ${field}`).toEqual(FIRST_VALUES[field]);
          else expect(view, `${code} hides ${field}`).not.toHaveProperty(field);
        }
      }
    });

    it('does not open the fields through the coarse material_list grants', async () => {
      const material = await createAsAdmin();
      await grantSupervisor(['material_list', 'material_list:operation']);
      const view = (await t.request('GET', `${BASE}/${material.id}`, { token: crafted.token })).json();
      for (const field of GUARDED) expect(view).not.toHaveProperty(field);
    });
  });

  describe('writing', () => {
    it('drops guarded fields from a create by a caller without the codes', async () => {
      const res = await t.request('POST', BASE, {
        token: plainWriter.token,
        body: { name: '无字段权限', category: '字段', remark: '可写', red_threshold: 4, ...FIRST_VALUES },
      });
      expect(res.statusCode, res.body).toBe(201);
      for (const field of GUARDED) expect(res.json()).not.toHaveProperty(field);
      const stored = await readAsAdmin(res.json().id);
      expect(stored).toMatchObject({ remark: '可写', red_threshold: 4, purchaseLink: null, referencePrice: null, productImageRemark: null, manualLinkRemark: null });
    });

    it('drops guarded fields from an update by a caller without the codes, even an explicit null', async () => {
      const material = await createAsAdmin();
      const res = await t.request('PUT', `${BASE}/${material.id}`, {
        token: plainWriter.token,
        body: { remark: '新备注', ...SECOND_VALUES },
      });
      expect(res.statusCode, res.body).toBe(200);
      expect(await readAsAdmin(material.id)).toMatchObject({ remark: '新备注', ...FIRST_VALUES });

      const nulls = Object.fromEntries(GUARDED.map((field) => [field, null]));
      await t.request('PUT', `${BASE}/${material.id}`, { token: plainWriter.token, body: nulls });
      expect(await readAsAdmin(material.id)).toMatchObject(FIRST_VALUES);
    });

    it('writes exactly the fields of the code a caller holds, on create and update', async () => {
      for (const { code, fields } of FIELD_CODES) {
        await grantSupervisor(['material_list:operation', code]);
        const created = await t.request('POST', BASE, { token: crafted.token, body: { name: `持有 ${code}`, category: '字段', ...FIRST_VALUES } });
        expect(created.statusCode, created.body).toBe(201);
        const id = created.json().id as number;
        let stored = await readAsAdmin(id);
        for (const field of GUARDED) expect(stored[field], `create ${code} → ${field}`).toEqual(fields.includes(field) ? FIRST_VALUES[field] : null);

        const updated = await t.request('PUT', `${BASE}/${id}`, { token: crafted.token, body: SECOND_VALUES });
        expect(updated.statusCode, updated.body).toBe(200);
        stored = await readAsAdmin(id);
        for (const field of GUARDED) expect(stored[field], `update ${code} → ${field}`).toEqual(fields.includes(field) ? SECOND_VALUES[field] : null);
      }
    });

    it('does not let the coarse material_list grant write guarded fields', async () => {
      await grantSupervisor(['material_list']);
      const created = await t.request('POST', BASE, { token: crafted.token, body: { name: '粗粒度', category: '字段', ...FIRST_VALUES } });
      expect(created.statusCode, created.body).toBe(201);
      expect(await readAsAdmin(created.json().id)).toMatchObject({ purchaseLink: null, referencePrice: null, productImageRemark: null, manualLinkRemark: null });
    });

    it('lets a field-code holder without material_list:operation update its fields, and drops the core ones', async () => {
      const material = await createAsAdmin();
      await grantSupervisor(['material_list:remark_edit']);
      const res = await t.request('PUT', `${BASE}/${material.id}`, { token: crafted.token, body: { ...SECOND_VALUES, name: '改名', remark: '改备注' } });
      expect(res.statusCode, res.body).toBe(200);
      const stored = await readAsAdmin(material.id);
      expect(stored).toMatchObject({
        name: '字段物料',
        remark: '原备注',
        productImageRemark: SECOND_VALUES.productImageRemark,
        manualLinkRemark: SECOND_VALUES.manualLinkRemark,
        purchaseLink: FIRST_VALUES.purchaseLink,
        referencePrice: FIRST_VALUES.referencePrice,
      });
      // creating and deleting stay material_list:operation's
      expect((await t.request('POST', BASE, { token: crafted.token, body: { name: 'x', category: '字段' } })).statusCode).toBe(403);
      expect((await t.request('DELETE', `${BASE}/${material.id}`, { token: crafted.token })).statusCode).toBe(403);
    });

    it('lets material_list:* holders and SUPER_ADMIN write every field, and clear one with null', async () => {
      const material = await createAsAdmin();
      await t.request('PUT', `${BASE}/${material.id}`, { token: manager.token, body: SECOND_VALUES });
      expect(await readAsAdmin(material.id)).toMatchObject(SECOND_VALUES);
      await t.request('PUT', `${BASE}/${material.id}`, { token: t.adminToken, body: { purchaseLink: null, referencePrice: null } });
      expect(await readAsAdmin(material.id)).toMatchObject({ purchaseLink: null, referencePrice: null, productImageRemark: '新图片' });
    });

    it('stores the reference price as decimal(10,2)', async () => {
      const material = await createAsAdmin({ referencePrice: 0.1 + 0.2 });
      expect((await readAsAdmin(material.id)).referencePrice).toBe(0.3);
      const rounded = await createAsAdmin({ referencePrice: 2.005 });
      expect((await readAsAdmin(rounded.id)).referencePrice).toBe(2.01);
    });
  });

  describe('export', () => {
    const readSheet = async (token: string, query = '') => {
      const res = await t.request('GET', `${BASE}/export${query}`, { token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toContain('spreadsheetml');
      expect(String(res.headers['content-disposition'])).toContain('attachment');
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      const rows: unknown[][] = [];
      sheet.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
      return { headers: rows[0] as string[], data: rows.slice(1) };
    };

    beforeAll(async () => {
      await createAsAdmin({ name: '导出物料', remark: '=cmd|/c calc', purchaseLink: '+SUM(A1)', spec_model: '@evil' });
      await t.user('SALES', 'BETA'); // a company exists once a user belongs to it
      const beta = await t.request('POST', BASE, { token: t.adminToken, body: { name: '导出物料', category: '字段', company_name: 'BETA' } });
      expect(beta.statusCode, beta.body).toBe(201);
    });

    it('writes every column and neutralises formula-like cells for a full reader', async () => {
      const { headers, data } = await readSheet(manager.token, '?keyword=导出物料');
      expect(headers).toEqual(expect.arrayContaining(['名称', '规格型号', '分类', '采购链接', '参考价', '产品图片备注', '说明书链接备注', '备注']));
      expect(data).toHaveLength(1);
      const row = Object.fromEntries(headers.map((header, i) => [header, data[0]![i]]));
      expect(row).toMatchObject({ 名称: '导出物料', 备注: "'=cmd|/c calc", 采购链接: "'+SUM(A1)", 规格型号: "'@evil", 参考价: 10.5, 公司: 'ALPHA' });
    });

    it('writes a sheet a person can use: Beijing date cells, numbers, text that never runs, frozen filtered header', async () => {
      const material = await createAsAdmin({ name: '表格物料', remark: '-2+3', spec_model: '=1+1' });
      const res = await t.request('GET', `${BASE}/export?keyword=表格物料`, { token: manager.token });
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const sheet = workbook.getWorksheet('物料')!;
      expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
      expect(sheet.getRow(1).getCell(1).font).toMatchObject({ bold: true });
      const headers = (sheet.getRow(1).values as unknown[]).slice(1) as string[];
      expect(sheet.autoFilter).toBe(`A1:${sheet.getColumn(headers.length).letter}2`);
      const cell = (header: string) => sheet.getRow(2).getCell(headers.indexOf(header) + 1);

      const created = cell('创建时间');
      expect(created.type).toBe(ExcelJS.ValueType.Date);
      expect(created.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
      const beijing = new Date(Math.floor(Date.parse(String(material.created_at)) / 1000) * 1000 + 8 * 3600_000);
      expect(created.value).toEqual(beijing);
      expect(cell('更新时间').type).toBe(ExcelJS.ValueType.Date);
      for (const header of ['物料ID', '参考价']) expect(cell(header).type, header).toBe(ExcelJS.ValueType.Number);
      expect(cell('物料ID').value).toBe(material.id);
      for (const [header, text] of [['备注', '-2+3'], ['规格型号', '=1+1']]) {
        expect(cell(header!).type, header).toBe(ExcelJS.ValueType.String);
        expect(cell(header!).formula).toBeUndefined();
        expect(cell(header!).text).toBe(`'${text}`);
      }
      expect(sheet.getColumn(headers.indexOf('创建时间') + 1).width).toBeGreaterThanOrEqual(19);
    });

    it('leaves out the columns and values a caller may not read', async () => {
      const { headers, data } = await readSheet(plainWriter.token, '?keyword=导出物料');
      for (const hidden of ['采购链接', '参考价', '产品图片备注', '说明书链接备注']) expect(headers).not.toContain(hidden);
      const cells = data.flat().map(String);
      for (const value of ['+SUM(A1)', '10.5', '旧图片', '旧说明书']) expect(cells).not.toContain(value);
      expect(headers).toContain('名称');
    });

    it('ignores the company filter unless the caller is cross-domain', async () => {
      const own = await readSheet(plainWriter.token, '?keyword=导出物料&company=BETA');
      expect(own.data).toHaveLength(1);
      const companyColumn = own.headers.indexOf('公司');
      expect(own.data[0]![companyColumn]).toBe('ALPHA');
      const beta = await readSheet(t.adminToken, '?keyword=导出物料&company=BETA');
      expect(beta.data.map((row) => row[companyColumn])).toEqual(['BETA']);
      const all = await readSheet(t.adminToken, '?keyword=导出物料');
      expect(all.data).toHaveLength(2);
    });
  });
});
