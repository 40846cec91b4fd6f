import ExcelJS from 'exceljs';
import { zipSync } from 'fflate';
import { sql } from 'drizzle-orm';
import { describe, expect, it } from 'vitest';
import { createMaterial, flowCast, queryRows, stockIn, useTestApp, type FlowCast } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { multipartBody } from './support/multipart.js';
import { usingPostgres } from '@wms/platform/testing';

const IMPORT = '/api/v1/import';

let t: TestInventory;
let w: FlowCast;
useTestApp(flowCast, (built) => ({ t, w } = built));

type Mode = 'create' | 'update';
type Kind = 'material' | 'bom';

const send = (action: 'preview' | 'execute', token: string, type: Kind, mode: Mode, data: Buffer) => {
  const { body, headers } = multipartBody({ type, mode }, { filename: 'import.xlsx', data });
  return t.request('POST', `${IMPORT}/${action}`, { token, body, headers });
};

/** A workbook of one sheet: the header row, then the rows. */
async function sheetFile(header: string[], rows: unknown[][]): Promise<Buffer> {
  const workbook = new ExcelJS.Workbook();
  const sheet = workbook.addWorksheet('导入');
  sheet.addRow(header);
  for (const row of rows) sheet.addRow(row);
  return Buffer.from(await workbook.xlsx.writeBuffer());
}

const materialCount = async () => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from materials`))[0]!.n;
const bomVersionCount = async () => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from bom_versions`))[0]!.n;
const unique = () => Math.random().toString(36).slice(2, 8);

describe('material import', () => {
  it('runs the low-stock check for a threshold it raises, as an edit does: one mail for the crossing', async () => {
    const email = await t.request('PATCH', `/api/v1/users/${w.mgr.id}`, { token: t.adminToken, body: { email: 'mgr@alpha.example' } });
    expect(email.statusCode, email.body).toBe(200);
    const material = await createMaterial(t, w.mgr.token, { name: `阈值导入${unique()}`, category: 'ALPHA/阈值', red_threshold: 1 });
    await stockIn(t, w.mgr.token, { base_id: material.id, in_quantity: 5 });
    const file = await sheetFile(['物料ID', '名称', '分类', '红色阈值'], [[material.id, material.name, 'ALPHA/阈值', 10]]);
    const executed = await send('execute', w.mgr.token, 'material', 'update', file);
    expect(executed.json().counts).toMatchObject({ update: 1 });
    const mails = async () =>
      queryRows<{ subject: string }>(t, sql`select subject from mail_outbox where kind = 'low_stock' and body like ${`%${material.name}%`}`);
    const until = Date.now() + 3000;
    while ((await mails()).length === 0 && Date.now() < until) await new Promise((resolve) => setTimeout(resolve, 50));
    expect((await mails()).map((mail) => mail.subject)).toEqual([expect.stringContaining('红色')]);
  });

  it('round-trips an export: edit the exported file, preview, execute, and the change is there', async () => {
    const category = `ALPHA/导入${unique()}`;
    const first = await createMaterial(t, w.mgr.token, { category, remark: '旧备注', referencePrice: 1.5 });
    const second = await createMaterial(t, w.mgr.token, { category });
    const exported = await t.request('GET', `/api/v1/inbound/base/export?category=${encodeURIComponent(category)}`, { token: w.mgr.token });
    expect(exported.statusCode).toBe(200);

    const workbook = new ExcelJS.Workbook();
    await workbook.xlsx.load(exported.rawPayload as unknown as ArrayBuffer);
    const sheet = workbook.worksheets[0]!;
    const headers = (sheet.getRow(1).values as unknown[]).map((value) => String(value ?? ''));
    const column = (header: string) => headers.indexOf(header);
    const rowOf = (id: number) => [2, 3].map((n) => sheet.getRow(n)).find((row) => row.getCell(column('物料ID')).value === id)!;
    rowOf(first.id).getCell(column('备注')).value = '新备注';
    rowOf(first.id).getCell(column('参考价')).value = 2.25;
    const added = sheet.addRow([]);
    added.getCell(column('名称')).value = `新物料${unique()}`;
    added.getCell(column('规格型号')).value = 'NEW-1';
    added.getCell(column('分类')).value = category;
    added.getCell(column('单位')).value = '套';
    const edited = Buffer.from(await workbook.xlsx.writeBuffer());

    const before = await materialCount();
    const preview = await send('preview', w.mgr.token, 'material', 'update', edited);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({ type: 'material', mode: 'update', executed: false, total: 3, imported: 0, counts: { update: 2, success: 1, error: 0, duplicate: 0 } });
    expect(preview.json().ignored_columns).toEqual(expect.arrayContaining(['实物库存', '创建时间']));
    expect(preview.json().rows).toEqual([
      { row: 2, status: 'update', message: expect.stringContaining(String(first.id)), id: first.id },
      { row: 3, status: 'update', message: expect.stringContaining('无变化'), id: second.id },
      { row: 4, status: 'success', message: expect.any(String), id: null },
    ]);
    expect(await materialCount()).toBe(before);

    const executed = await send('execute', w.mgr.token, 'material', 'update', edited);
    expect(executed.statusCode, executed.body).toBe(200);
    expect(executed.json()).toMatchObject({ executed: true, imported: 3, counts: { update: 2, success: 1 } });
    const changed = await t.request('GET', `/api/v1/inbound/base/${first.id}`, { token: w.mgr.token });
    expect(changed.json()).toMatchObject({ remark: '新备注', referencePrice: 2.25, name: first.name });
    const createdId = executed.json().rows[2].id as number;
    const created = await t.request('GET', `/api/v1/inbound/base/${createdId}`, { token: w.mgr.token });
    expect(created.json()).toMatchObject({ spec_model: 'NEW-1', unit: '套', category, company_name: 'ALPHA' });
    expect(await materialCount()).toBe(before + 1);
    // the unchanged row left no audit record
    const audits = await queryRows(t, sql`select id from audit_logs where table_name = 'materials' and action = 'UPDATE' and target_id = ${String(second.id)}`);
    expect(audits).toHaveLength(0);

    // in create mode the same file is all duplicates
    const again = await send('preview', w.mgr.token, 'material', 'create', edited);
    expect(again.json().counts).toEqual({ success: 0, update: 0, error: 0, duplicate: 3 });
  });

  it('judges each row: errors and duplicates are reported and only success rows are written', async () => {
    const name = `导入件${unique()}`;
    const file = await sheetFile(['名称*', '规格型号', '分类', '参考价', '红色阈值'], [
      [name, 'A', 'ALPHA/导入', 1, 5],
      [name, 'A', 'ALPHA/导入', 2, 5],
      [`${name}-2`, 'B', ' / ', 1, null],
      [`${name}-3`, 'C', 'ALPHA/导入', 'abc', null],
      [null, 'D', 'ALPHA/导入', null, null],
      [`${name}-4`, 'E', 'ALPHA/导入', null, -1],
      [],
      [`${name}-5`, 'F', 'ALPHA/导入', '3.5', null],
    ]);
    const before = await materialCount();
    const preview = await send('preview', w.mgr.token, 'material', 'create', file);
    expect(preview.statusCode, preview.body).toBe(200);
    const rows = preview.json().rows as { row: number; status: string; message: string }[];
    expect(rows.map((row) => [row.row, row.status])).toEqual([
      [2, 'success'], [3, 'duplicate'], [4, 'error'], [5, 'error'], [6, 'error'], [7, 'error'], [9, 'success'],
    ]);
    expect(rows[1]!.message).toContain('第 2 行');
    expect(rows[3]!.message).toContain('参考价');
    expect(rows[4]!.message).toContain('名称');
    expect(rows[5]!.message).toContain('红色阈值');
    expect(await materialCount()).toBe(before);

    const executed = await send('execute', w.mgr.token, 'material', 'create', file);
    expect(executed.json()).toMatchObject({ imported: 2, counts: { success: 2, duplicate: 1, error: 4 } });
    expect(await materialCount()).toBe(before + 2);
    const stored = await queryRows<{ reference_price: string }>(t, sql`select reference_price from materials where name = ${`${name}-5`}`);
    expect(stored).toEqual([{ reference_price: '3.50' }]);
  });

  it('re-judges at execute: a row that became a duplicate since the preview is not written', async () => {
    const name = `竞争件${unique()}`;
    const file = await sheetFile(['名称', '规格型号', '分类'], [[name, 'X', 'ALPHA/导入']]);
    expect((await send('preview', w.mgr.token, 'material', 'create', file)).json().counts.success).toBe(1);
    await createMaterial(t, w.mgr.token, { name, spec_model: 'X', category: 'ALPHA/导入' });
    const executed = await send('execute', w.mgr.token, 'material', 'create', file);
    expect(executed.json()).toMatchObject({ imported: 0, counts: { duplicate: 1 } });
    const stored = await queryRows(t, sql`select id from materials where name = ${name}`);
    expect(stored).toHaveLength(1);
  });

  it('follows the field permissions and the company of the caller', async () => {
    const name = `权限件${unique()}`;
    const file = await sheetFile(['名称', '分类', '参考价', '采购链接', '公司'], [[name, 'ALPHA/导入', 9.99, 'https://x.example', 'BETA']]);
    const executed = await send('execute', w.inbound.token, 'material', 'create', file);
    expect(executed.statusCode, executed.body).toBe(200);
    expect(executed.json().ignored_columns).toEqual(expect.arrayContaining(['参考价', '采购链接', '公司']));
    const [stored] = await queryRows<Record<string, unknown>>(t, sql`select company_name, reference_price, purchase_link from materials where name = ${name}`);
    expect(stored).toEqual({ company_name: 'ALPHA', reference_price: null, purchase_link: null });

    // another company's material id is unknown to the caller
    const alpha = await createMaterial(t, w.mgr.token);
    const foreign = await sheetFile(['物料ID', '名称', '分类'], [[alpha.id, '改名', 'BETA/x']]);
    const refused = await send('preview', w.betaMgr.token, 'material', 'update', foreign);
    expect(refused.json().rows[0]).toMatchObject({ status: 'error', message: expect.stringContaining('不存在') });

    // a cross-domain caller names the company per row
    const adminFile = await sheetFile(['名称', '分类', '公司'], [[`${name}-b`, 'BETA/导入', 'BETA'], [`${name}-n`, 'X/导入', null], [`${name}-u`, 'X', 'NOPE_CO']]);
    const admin = await send('execute', w.admin, 'material', 'create', adminFile);
    expect(admin.json().rows.map((row: { status: string }) => row.status)).toEqual(['success', 'error', 'error']);
    const [beta] = await queryRows<{ company_name: string }>(t, sql`select company_name from materials where name = ${`${name}-b`}`);
    expect(beta!.company_name).toBe('BETA');
  });
});

describe('material import: one material per file', () => {
  it('marks a row naming a material an earlier row already names (by 物料ID, or by its old name) as a duplicate', async () => {
    const old = await createMaterial(t, w.mgr.token, { name: `改名前${unique()}`, spec_model: 'R-1', category: 'ALPHA/导入' });
    const renamed = `改名后${unique()}`;
    const file = await sheetFile(['物料ID', '名称', '规格型号', '分类', '备注'], [
      [old.id, renamed, 'R-1', 'ALPHA/导入', '第一行'],
      [null, old.name, 'R-1', 'ALPHA/导入', '第二行'],
    ]);
    const preview = await send('preview', w.mgr.token, 'material', 'update', file);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json().rows).toEqual([
      { row: 2, status: 'update', message: expect.any(String), id: old.id },
      { row: 3, status: 'duplicate', message: expect.stringContaining('第 2 行'), id: null },
    ]);
    const executed = await send('execute', w.mgr.token, 'material', 'update', file);
    expect(executed.json()).toMatchObject({ imported: 1, counts: { update: 1, duplicate: 1 } });
    const stored = await t.request('GET', `/api/v1/inbound/base/${old.id}`, { token: w.mgr.token });
    expect(stored.json()).toMatchObject({ name: renamed, remark: '第一行' });
  });

  it('lists a second column of the same field among the ignored columns instead of dropping it silently', async () => {
    const name = `双列${unique()}`;
    const file = await sheetFile(['名称', '分类', '备注', 'remark'], [[name, 'ALPHA/导入', '读取', '不读取']]);
    const preview = await send('preview', w.mgr.token, 'material', 'create', file);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json().ignored_columns).toEqual(['remark']);
  });
});

describe('import files that are refused', () => {
  const expectRefused = async (data: Buffer, reason: string) => {
    const before = await materialCount();
    for (const action of ['preview', 'execute'] as const) {
      const res = await send(action, w.mgr.token, 'material', 'create', data);
      expect(res.statusCode, res.body).toBe(400);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file', reason });
      expect(res.json().msg).toMatch(/\S/);
    }
    expect(await materialCount()).toBe(before);
  };

  it('refuses files that are not xlsx', async () => {
    await expectRefused(Buffer.from('名称,分类\n电阻,ALPHA/电子\n'), 'not_xlsx');
    await expectRefused(Buffer.from(zipSync({ 'readme.txt': new TextEncoder().encode('hello') })), 'not_xlsx');
    await expectRefused(Buffer.concat([Buffer.from([0x50, 0x4b, 0x03, 0x04]), Buffer.alloc(64, 7)]), 'not_xlsx');
    const valid = await sheetFile(['名称', '分类'], [['a', 'ALPHA/b']]);
    await expectRefused(valid.subarray(0, Math.floor(valid.length / 2)), 'not_xlsx');
  });

  /** A real workbook whose sheet is padded with `padding` bytes of spaces (which deflate to almost nothing). */
  const bombWorkbook = (padding: number) => {
    const encoder = new TextEncoder();
    const sheet = new Uint8Array(padding + 200);
    sheet.set(encoder.encode('<?xml version="1.0"?><worksheet xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheetData>'));
    sheet.fill(0x20, 120);
    sheet.set(encoder.encode('</sheetData></worksheet>'), sheet.length - 30);
    return Buffer.from(zipSync({
      '[Content_Types].xml': encoder.encode('<?xml version="1.0"?><Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types"/>'),
      'xl/workbook.xml': encoder.encode('<?xml version="1.0"?><workbook xmlns="http://schemas.openxmlformats.org/spreadsheetml/2006/main"><sheets><sheet name="a" sheetId="1"/></sheets></workbook>'),
      'xl/worksheets/sheet1.xml': sheet,
    }, { level: 9 }));
  };

  it('refuses a zip bomb whose entry inflates past the cap', async () => {
    const bomb = bombWorkbook(60 * 1024 * 1024);
    expect(bomb.length).toBeLessThan(1024 * 1024);
    await expectRefused(bomb, 'too_large');
  });

  it('refuses a zip bomb that understates its sizes in the directory', async () => {
    const bomb = bombWorkbook(60 * 1024 * 1024);
    // rewrite the sheet's uncompressed size in its local header and in the central directory to 1 KB
    const name = Buffer.from('xl/worksheets/sheet1.xml');
    for (const [signature, sizeOffset, nameOffset] of [[0x04034b50, 22, 30], [0x02014b50, 24, 46]] as const) {
      for (let i = 0; i < bomb.length - 4; i++) {
        if (bomb.readUInt32LE(i) === signature && bomb.subarray(i + nameOffset, i + nameOffset + name.length).equals(name)) bomb.writeUInt32LE(1024, i + sizeOffset);
      }
    }
    await expectRefused(bomb, 'too_large');
  });

  it('refuses more than 10,000 data rows', async () => {
    const rows = Array.from({ length: 10_001 }, (_, i) => [`行${i}`, 'ALPHA/多行']);
    await expectRefused(await sheetFile(['名称', '分类'], rows), 'too_many_rows');
  });

  it('refuses a bad form with a 4xx and writes nothing', async () => {
    const file = await sheetFile(['名称', '分类'], [['a', 'ALPHA/b']]);
    const cases: [Record<string, string>, boolean, number, string][] = [
      [{ type: 'material' }, true, 400, 'mode'],
      [{ type: 'stock', mode: 'create' }, true, 400, 'type'],
      [{ type: 'material', mode: 'upsert' }, true, 400, 'mode'],
      [{ type: 'material', mode: 'create' }, false, 400, 'file'],
    ];
    for (const [fields, withFile, status, field] of cases) {
      const { body, headers } = multipartBody(fields, withFile ? { filename: 'a.xlsx', data: file } : undefined);
      const res = await t.request('POST', `${IMPORT}/preview`, { token: w.mgr.token, body, headers });
      expect(res.statusCode, res.body).toBe(status);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', field });
    }
    // the spec names the file and mode only: type defaults to material
    const untyped = multipartBody({ mode: 'create' }, { filename: 'a.xlsx', data: file });
    const preview = await t.request('POST', `${IMPORT}/preview`, { token: w.mgr.token, body: untyped.body, headers: untyped.headers });
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json()).toMatchObject({ type: 'material', mode: 'create', executed: false, total: 1 });
    // type and mode may come in the query string; a form field of the same name wins
    const fileOnly = multipartBody({}, { filename: 'a.xlsx', data: file });
    const queried = await t.request('POST', `${IMPORT}/preview?type=material&mode=update`, { token: w.mgr.token, body: fileOnly.body, headers: fileOnly.headers });
    expect(queried.statusCode, queried.body).toBe(200);
    expect(queried.json()).toMatchObject({ type: 'material', mode: 'update', executed: false });
    const formWins = await t.request('POST', `${IMPORT}/preview?mode=update`, { token: w.mgr.token, body: untyped.body, headers: untyped.headers });
    expect(formWins.json()).toMatchObject({ mode: 'create' });
    const badQuery = await t.request('POST', `${IMPORT}/preview?type=stock`, { token: w.mgr.token, body: untyped.body, headers: untyped.headers });
    expect(badQuery.statusCode).toBe(400);
    expect(badQuery.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'type' });
    const json = await t.request('POST', `${IMPORT}/execute`, { token: w.mgr.token, body: { type: 'material', mode: 'create' } });
    expect(json.statusCode).toBe(415);
    expect(json.json()).toMatchObject({ code: 'UNSUPPORTED_MEDIA_TYPE' });
    const huge = multipartBody({ type: 'material', mode: 'create' }, { filename: 'big.xlsx', data: Buffer.alloc(21 * 1024 * 1024) });
    const tooBig = await t.request('POST', `${IMPORT}/preview`, { token: w.mgr.token, body: huge.body, headers: huge.headers });
    expect(tooBig.statusCode).toBe(413);
    expect(tooBig.json()).toMatchObject({ code: 'PAYLOAD_TOO_LARGE' });
  });

  it('needs the write code of the imported kind', async () => {
    const file = await sheetFile(['名称', '分类'], [['a', 'ALPHA/b']]);
    expect((await send('preview', w.sales.token, 'material', 'create', file)).statusCode).toBe(403);
    const bom = await send('execute', w.inbound.token, 'bom', 'create', file);
    expect(bom.statusCode).toBe(403);
    expect(bom.json().msg).toContain('bom_manage:operation');
    expect((await t.request('GET', `${IMPORT}/template?type=bom`, { token: w.inbound.token })).statusCode).toBe(403);
  });
});

describe('import templates', () => {
  it('answers an xlsx template per type whose header the import reads', async () => {
    for (const [type, header] of [['material', '名称'], ['bom', '父件物料ID']] as const) {
      const res = await t.request('GET', `${IMPORT}/template?type=${type}`, { token: w.mgr.token });
      expect(res.statusCode).toBe(200);
      expect(res.headers['content-type']).toContain('spreadsheetml');
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      expect(workbook.worksheets.map((sheet) => sheet.name)).toEqual([type === 'bom' ? 'BOM导入' : '物料导入', '填写说明']);
      expect(workbook.worksheets[0]!.getRow(1).values).toContain(header);
      // the untouched template imports as an empty file
      const empty = await send('preview', w.mgr.token, type, 'create', Buffer.from(res.rawPayload));
      expect(empty.statusCode, empty.body).toBe(200);
      expect(empty.json()).toMatchObject({ total: 0 });
    }
    expect((await t.request('GET', `${IMPORT}/template?type=stock`, { token: w.mgr.token })).statusCode).toBe(400);
  });
});

describe('BOM import', () => {
  it('publishes one version per parent, refuses duplicates in create mode and adds a version in update mode', async () => {
    const parentA = await createMaterial(t, w.mgr.token, { category: 'ALPHA/成品' });
    const parentB = await createMaterial(t, w.mgr.token, { category: 'ALPHA/成品' });
    const c1 = await createMaterial(t, w.mgr.token);
    const c2 = await createMaterial(t, w.mgr.token);
    const header = ['父件物料ID', '父件名称', '父件规格型号', '子件物料ID', '子件名称', '子件规格型号', '用量', '子件备注', 'BOM备注'];
    const file = await sheetFile(header, [
      [parentA.id, null, null, c1.id, null, null, 2, '左', '导入版'],
      [parentA.id, null, null, null, c2.name, c2.spec_model, 1.5, null, null],
      [null, parentB.name, parentB.spec_model, c1.id, null, null, 4, null, null],
      [null, parentB.name, parentB.spec_model, c1.id, null, null, 5, null, null],
    ]);
    const preview = await send('preview', w.mgr.token, 'bom', 'create', file);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json().rows.map((row: { status: string }) => row.status)).toEqual(['success', 'success', 'success', 'duplicate']);
    const before = await bomVersionCount();
    const executed = await send('execute', w.mgr.token, 'bom', 'create', file);
    expect(executed.json()).toMatchObject({ imported: 3 });
    expect(await bomVersionCount()).toBe(before + 2);
    const bomA = await t.request('GET', `/api/v1/bom/${parentA.id}`, { token: w.mgr.token });
    expect(bomA.json()).toMatchObject({ version: 1, status: 'published', remark: '导入版', items: [{ child_id: c1.id, quantity: 2, remark: '左' }, { child_id: c2.id, quantity: 1.5 }] });
    expect(executed.json().rows[0].id).toBe(bomA.json().bom_version_id);

    expect((await send('preview', w.mgr.token, 'bom', 'create', file)).json().counts).toMatchObject({ duplicate: 4 });
    const updated = await send('execute', w.mgr.token, 'bom', 'update', file);
    expect(updated.json().counts).toMatchObject({ update: 3, duplicate: 1 });
    const bomB = await t.request('GET', `/api/v1/bom/${parentB.id}`, { token: w.mgr.token });
    expect(bomB.json()).toMatchObject({ version: 2, items: [{ child_id: c1.id, quantity: 4 }] });
  });

  it('refuses a BOM that closes a cycle with an earlier BOM of the same file, the same way in preview and execute', async () => {
    const [p1, p2, p3, leaf] = await Promise.all([1, 2, 3, 4].map(() => createMaterial(t, w.mgr.token, { category: 'ALPHA/成品' })));
    // p3 → p1 is already published; the file adds p1 → p2, then p2 → p3 (closes p2 → p3 → p1 → p2) and p2 → leaf
    const stored = await t.request('POST', '/api/v1/bom/save', { token: w.mgr.token, body: { parent_id: p3!.id, items: [{ child_id: p1!.id, quantity: 1 }] } });
    expect(stored.statusCode, stored.body).toBe(200);
    const file = await sheetFile(['父件物料ID', '子件物料ID', '用量'], [
      [p1!.id, p2!.id, 1],
      [p2!.id, p3!.id, 1],
      [p2!.id, leaf!.id, 1],
    ]);
    for (const action of ['preview', 'execute'] as const) {
      const answer = await send(action, w.mgr.token, 'bom', 'create', file);
      expect(answer.statusCode, answer.body).toBe(200);
      expect(answer.json().rows.map((row: { status: string }) => row.status), action).toEqual(['success', 'error', 'error']);
      expect(answer.json().rows[1].message).toContain('循环');
      if (action === 'execute') {
        expect((await t.request('GET', `/api/v1/bom/${p1!.id}`, { token: w.mgr.token })).json()).toMatchObject({ items: [{ child_id: p2!.id }] });
        expect((await t.request('GET', `/api/v1/bom/${p2!.id}`, { token: w.mgr.token })).statusCode).toBe(404); // no BOM
      }
    }
  });

  it('keeps a parent’s whole BOM out when one of its rows is wrong, and refuses parents with a draft', async () => {
    const parent = await createMaterial(t, w.mgr.token, { category: 'ALPHA/成品' });
    const drafted = await createMaterial(t, w.mgr.token, { category: 'ALPHA/成品' });
    const child = await createMaterial(t, w.mgr.token);
    const beta = await createMaterial(t, w.betaMgr.token, { category: 'BETA/零件' });
    await t.request('POST', '/api/v1/bom/draft/save', { token: w.mgr.token, body: { parent_id: drafted.id, items: [{ child_id: child.id, quantity: 1 }] } });
    const file = await sheetFile(['父件物料ID', '子件物料ID', '用量'], [
      [parent.id, child.id, 1],
      [parent.id, beta.id, 1],
      [parent.id, parent.id, 1],
      [drafted.id, child.id, 2],
      [parent.id, child.id, 0],
      [99999999, child.id, 1],
    ]);
    const before = await bomVersionCount();
    const executed = await send('execute', w.mgr.token, 'bom', 'create', file);
    expect(executed.statusCode, executed.body).toBe(200);
    const rows = executed.json().rows as { status: string; message: string }[];
    expect(rows.map((row) => row.status)).toEqual(['error', 'error', 'error', 'error', 'error', 'error']);
    expect(rows[0]!.message).toContain('其他行有错误');
    expect(rows[1]!.message).toContain('不存在');
    expect(rows[2]!.message).toContain('父件本身');
    expect(rows[3]!.message).toContain('草稿');
    expect(rows[4]!.message).toContain('用量');
    expect(executed.json().imported).toBe(0);
    expect(await bomVersionCount()).toBe(before);
  });
});

describe('BOM import limits', () => {
  it('refuses a parent with more child lines than a BOM may have (1000), as the API does', async () => {
    const prefix = `子件${unique()}`;
    const children = Array.from({ length: 1001 }, (_, i) => [`${prefix}-${i}`, 'C', 'ALPHA/零件']);
    const created = await send('execute', w.mgr.token, 'material', 'create', await sheetFile(['名称', '规格型号', '分类'], children));
    expect(created.json().counts.success).toBe(1001);
    const parent = await createMaterial(t, w.mgr.token, { category: 'ALPHA/成品' });
    const tooMany = await sheetFile(['父件物料ID', '子件名称', '子件规格型号', '用量'], children.map(([name]) => [parent.id, name, 'C', 1]));
    const before = await bomVersionCount();
    const executed = await send('execute', w.mgr.token, 'bom', 'create', tooMany);
    expect(executed.statusCode, executed.body).toBe(200);
    expect(executed.json()).toMatchObject({ imported: 0, counts: { success: 0, error: 1001 } });
    expect(executed.json().rows[0].message).toContain('1000');
    expect(await bomVersionCount()).toBe(before);
    // 1000 lines are a BOM
    const enough = await send('execute', w.mgr.token, 'bom', 'create', await sheetFile(['父件物料ID', '子件名称', '子件规格型号', '用量'], children.slice(0, 1000).map(([name]) => [parent.id, name, 'C', 1])));
    expect(enough.json()).toMatchObject({ imported: 1000 });
    expect((await t.request('GET', `/api/v1/bom/${parent.id}`, { token: w.mgr.token })).json()).toMatchObject({ child_count: 1000 });
  });
});

describe('material export', () => {
  it('ignores the company filter of a caller who is not cross-domain', async () => {
    const category = `导出${unique()}`;
    await createMaterial(t, w.mgr.token, { category: `ALPHA/${category}` });
    await createMaterial(t, w.betaMgr.token, { category: `BETA/${category}` });
    const companiesOf = async (token: string, query: string) => {
      const res = await t.request('GET', `/api/v1/inbound/base/export?${query}`, { token });
      expect(res.statusCode).toBe(200);
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      const sheet = workbook.worksheets[0]!;
      const column = (sheet.getRow(1).values as unknown[]).indexOf('公司');
      const companies = new Set<string>();
      sheet.eachRow((row, n) => {
        if (n > 1) companies.add(String(row.getCell(column).value));
      });
      return [...companies].sort();
    };
    expect(await companiesOf(w.mgr.token, 'company=BETA')).toEqual(['ALPHA']);
    expect(await companiesOf(w.betaMgr.token, 'company=ALPHA')).toEqual(['BETA']);
    expect(await companiesOf(w.admin, 'company=BETA')).toEqual(['BETA']);
    expect(await companiesOf(w.admin, '')).toEqual(['ALPHA', 'BETA']);
  });
});

/** Real concurrency needs real connections: PostgreSQL only (PGlite runs every transaction in turn). */
describe.skipIf(!usingPostgres())('BOM import under concurrent executes (PostgreSQL)', () => {
  it('publishes a parent once in create mode: the others are duplicates or asked to preview again, never a second version', async () => {
    const parent = await createMaterial(t, w.mgr.token, { category: 'ALPHA/成品' });
    const child = await createMaterial(t, w.mgr.token);
    const file = await sheetFile(['父件物料ID', '子件物料ID', '用量'], [[parent.id, child.id, 2]]);
    // three keepers at once (one keeper's repeat would meet the idempotency lock instead)
    const keepers = [w.mgr, await t.user('WAREHOUSE_MGR', 'ALPHA'), await t.user('WAREHOUSE_MGR', 'ALPHA')];
    const answers = await Promise.all(keepers.map((keeper) => send('execute', keeper.token, 'bom', 'create', file)));
    const published = answers.filter((answer) => answer.statusCode === 200 && answer.json().imported === 1);
    expect(published).toHaveLength(1);
    for (const answer of answers.filter((candidate) => !published.includes(candidate))) {
      if (answer.statusCode === 200) expect(answer.json().counts, answer.body).toMatchObject({ duplicate: 1 });
      else expect(answer.json(), answer.body).toMatchObject({ code: 'CONFLICT' });
    }
    const versions = await queryRows<{ n: number }>(t, sql`select count(*)::int as n from bom_versions where parent_id = ${parent.id}`);
    expect(versions[0]!.n).toBe(1);
  });
});
