import ExcelJS from 'exceljs';
import { strFromU8, strToU8, unzipSync, zipSync } from 'fflate';
import { sql } from 'drizzle-orm';
import type { LightMyRequestResponse } from 'fastify';
import { describe, expect, it } from 'vitest';
import { createMaterial, flowCast, queryRows, stockIn, useTestApp, type FlowCast } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { approvedStockScrap, execute } from './scrap-fixtures.js';
import { multipartBody } from './support/multipart.js';

/**
 * Every spreadsheet the inventory service reads or writes (contract §7, decisions "Spreadsheet exports",
 * "BOM and import"): formula-like text comes out as constant text behind an apostrophe, numbers and times as typed cells, and a
 * bad upload is a 4xx with msg and code that writes nothing.
 */

let t: TestInventory;
let w: FlowCast;
useTestApp(flowCast, (built) => ({ t, w } = built));

const API = '/api/v1';
const FORMULA_LIKE = ['=1+1', '+SUM(A1)', '-2+3', '@cmd'];

interface Download {
  workbook: ExcelJS.Workbook;
  xml: string;
}

async function download(response: LightMyRequestResponse): Promise<Download> {
  expect(response.statusCode, response.body).toBe(200);
  expect(response.headers['content-type']).toContain('spreadsheetml');
  expect(response.headers['content-disposition']).toContain('attachment');
  const bytes = response.rawPayload;
  const xml = Object.values(unzipSync(new Uint8Array(bytes))).map((part) => strFromU8(part)).join('\n');
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(bytes as unknown as ArrayBuffer);
  return { workbook, xml };
}

/** The cell of `header` in the first data row whose cells include `marker` (a sheet of the download). */
function cellOf(file: Download, sheetName: string, marker: string, header: string): ExcelJS.Cell {
  const sheet = file.workbook.getWorksheet(sheetName);
  expect(sheet, sheetName).toBeDefined();
  const headers = (sheet!.getRow(1).values as unknown[]).map((value) => (value === undefined || value === null ? '' : String(value)));
  const column = headers.indexOf(header);
  expect(column, `${sheetName}: ${header}`).toBeGreaterThan(0);
  for (let n = 2; n <= sheet!.rowCount; n++) {
    const row = sheet!.getRow(n);
    if ((row.values as unknown[]).some((value) => value === marker || value === shown(marker))) return row.getCell(column);
  }
  throw new Error(`${sheetName}: no row with ${marker}`);
}

/** What a reader sees of stored text: text that begins like a formula (=, +, -, @) behind an apostrophe. */
const shown = (text: string) => (/^[=+\-@]/.test(text) ? `'${text}` : text);

/** Constant text, neutralised where it begins like a formula: a string cell, never a formula. */
function expectText(cell: ExcelJS.Cell, text: string) {
  expect(cell.type, `${cell.address} ${String(cell.value)}`).toBe(ExcelJS.ValueType.String);
  expect(cell.formula).toBeUndefined();
  expect(cell.value).toBe(shown(text));
}

function expectNumber(cell: ExcelJS.Cell, value: number) {
  expect(cell.type, `${cell.address} ${String(cell.value)}`).toBe(ExcelJS.ValueType.Number);
  expect(cell.value).toBe(value);
}

const expectDate = (cell: ExcelJS.Cell) => expect(cell.type, `${cell.address} ${String(cell.value)}`).toBe(ExcelJS.ValueType.Date);

/** No spreadsheet program can find a formula anywhere in the file. */
const expectNoFormula = (file: Download) => expect(file.xml).not.toMatch(/<f[\s>]|<f\/>/);

const unique = () => Math.random().toString(36).slice(2, 8);

describe('exports neutralise formula-like text (constant text behind an apostrophe) and type numbers and times', () => {
  it('material, stock and scrap records exports', async () => {
    const category = `ALPHA/公式${unique()}`;
    const [name, spec, remark, unit] = FORMULA_LIKE as [string, string, string, string];
    const material = await createMaterial(t, w.mgr.token, { name, spec_model: spec, remark, unit, category, referencePrice: 2.5, red_threshold: 3 });
    const sku = `-${Math.floor(Math.random() * 1e8)}`;
    const row = await stockIn(t, w.mgr.token, { base_id: material.id, in_quantity: 5, warehouse_location: '=A/1', batch_number: '-5', remark: '@SUM(1)', sku });

    const materials = await download(await t.request('GET', `${API}/inbound/base/export?category=${encodeURIComponent(category)}`, { token: w.mgr.token }));
    expectNoFormula(materials);
    expectText(cellOf(materials, '物料', name, '名称'), name);
    expectText(cellOf(materials, '物料', name, '规格型号'), spec);
    expectText(cellOf(materials, '物料', name, '备注'), remark);
    expectText(cellOf(materials, '物料', name, '单位'), unit);
    expectNumber(cellOf(materials, '物料', name, '物料ID'), material.id);
    expectNumber(cellOf(materials, '物料', name, '参考价'), 2.5);
    expectNumber(cellOf(materials, '物料', name, '实物库存'), 5);
    expectDate(cellOf(materials, '物料', name, '创建时间'));

    const stock = await download(await t.request('GET', `${API}/inbound/stock/export?keyword=${encodeURIComponent(sku)}`, { token: w.mgr.token }));
    expectNoFormula(stock);
    expectText(cellOf(stock, '库存', sku, '条码'), sku); // a SKU that reads like a negative number stays text
    expectText(cellOf(stock, '库存', sku, '库位'), '=A/1');
    expectText(cellOf(stock, '库存', sku, '批次号'), '-5');
    expectText(cellOf(stock, '库存', sku, '备注'), '@SUM(1)');
    expectText(cellOf(stock, '库存', sku, '物料名称'), name);
    expectNumber(cellOf(stock, '库存', sku, '库存数量'), 5);
    expectDate(cellOf(stock, '库存', sku, '入库日期'));
    expectDate(cellOf(stock, '库存', sku, '创建时间'));

    const approved = await approvedStockScrap(w, row, 2);
    const executed = await execute(w, approved.id, { scans: [{ barcode: sku, quantity: 2 }] });
    expect(executed.statusCode, executed.body).toBe(200);
    const scrap = await download(await t.request('GET', `${API}/scrap/records/export?keyword=${encodeURIComponent(sku)}`, { token: w.mgr.token }));
    expectNoFormula(scrap);
    expectText(cellOf(scrap, '报废记录', sku, '物料名称'), name);
    expectText(cellOf(scrap, '报废记录', sku, '位置'), '=A/1');
    expectNumber(cellOf(scrap, '报废记录', sku, '报废数量'), 2);
    expectDate(cellOf(scrap, '报废记录', sku, '报废时间'));
  });

  it('stocktake export: formula-like text stays text, a negative variance stays a number', async () => {
    const material = await createMaterial(t, w.mgr.token, { name: '=HYPERLINK("http://x")', spec_model: '-1', category: `ALPHA/盘点${unique()}` });
    const row = await stockIn(t, w.mgr.token, { base_id: material.id, in_quantity: 5, warehouse_location: `+Z/${unique()}` });
    const session = await t.request('POST', `${API}/draft/start-new`, { token: w.mgr.token, body: { mode: 'open', scope_type: 'active', scope_config: { locations: [row.warehouse_location] } } });
    expect(session.statusCode, session.body).toBeLessThan(300);
    const sessionId = session.json().session_id as number;
    const counted = await t.request('POST', `${API}/draft/add`, { token: w.mgr.token, body: { session_id: sessionId, barcode: row.sku, quantity: 2, remark: '=cmd|calc' } });
    expect(counted.statusCode, counted.body).toBeLessThan(300);

    const file = await download(await t.request('GET', `${API}/export-stocktake?session_id=${sessionId}`, { token: w.mgr.token }));
    expectNoFormula(file);
    expectText(cellOf(file, '盘点差异明细', row.sku, '物料名称'), material.name);
    expectText(cellOf(file, '盘点差异明细', row.sku, '规格型号'), '-1');
    expectText(cellOf(file, '盘点差异明细', row.sku, '库位'), row.warehouse_location);
    expectText(cellOf(file, '盘点差异明细', row.sku, '备注'), '=cmd|calc');
    expectNumber(cellOf(file, '盘点差异明细', row.sku, '账面数量'), 5);
    expectNumber(cellOf(file, '盘点差异明细', row.sku, '实盘数量'), 2);
    expectNumber(cellOf(file, '盘点差异明细', row.sku, '差异'), -3);
    expectDate(cellOf(file, '盘点差异明细', row.sku, '盘点时间'));
    expectNumber(cellOf(file, '盘点汇总', '差异合计', '内容'), -3);
    expectDate(cellOf(file, '盘点汇总', '开始时间', '内容'));
  });

  it('audit export and daily report: formula-like names stay text, the export time is a date cell', async () => {
    const name = `=1+1${unique()}`;
    await createMaterial(t, w.mgr.token, { name, category: 'ALPHA/审计' });
    const exported = await download(await t.request('GET', `${API}/audit/logs/export?target_keyword=${encodeURIComponent(name)}`, { token: t.adminToken }));
    expectNoFormula(exported);
    expect(exported.workbook.worksheets.map((sheet) => sheet.name)).toEqual(['汇总', '审计日志', '变更明细']);
    expectText(cellOf(exported, '审计日志', name, '对象名称'), name);
    expectDate(cellOf(exported, '审计日志', name, '时间'));
    expectNumber(cellOf(exported, '汇总', '匹配记录数', '内容'), 1);
    expectDate(cellOf(exported, '汇总', '导出时间', '内容'));

    const daily = await download(await t.request('GET', `${API}/audit/daily-report`, { token: t.adminToken }));
    expectNoFormula(daily);
    expectText(cellOf(daily, '明细', name, '对象名称'), name);
    expectDate(cellOf(daily, '明细', name, '时间'));
  });

  it('import templates are workbooks the import reads back', async () => {
    for (const type of ['material', 'bom']) {
      const template = await download(await t.request('GET', `${API}/import/template?type=${type}`, { token: w.mgr.token }));
      expectNoFormula(template);
      expect(template.workbook.worksheets).toHaveLength(2);
    }
  });
});

describe('bad uploads are refused with a 4xx and write nothing', () => {
  const send = (action: 'preview' | 'execute', type: 'material' | 'bom', mode: 'create' | 'update', data: Buffer) => {
    const { body, headers } = multipartBody({ type, mode }, { filename: 'import.xlsx', data });
    return t.request('POST', `${API}/import/${action}`, { token: w.mgr.token, body, headers });
  };
  const counts = async () =>
    (await queryRows<{ materials: number; versions: number }>(t, sql`select (select count(*)::int from materials) as materials, (select count(*)::int from bom_versions) as versions`))[0]!;

  async function workbookOf(build: (workbook: ExcelJS.Workbook) => void): Promise<Buffer> {
    const workbook = new ExcelJS.Workbook();
    build(workbook);
    return Buffer.from(await workbook.xlsx.writeBuffer());
  }
  const sheetFile = (header: unknown[], rows: unknown[][]) =>
    workbookOf((workbook) => {
      const sheet = workbook.addWorksheet('导入');
      sheet.addRow(header);
      for (const row of rows) sheet.addRow(row);
    });

  async function expectRefused(data: Buffer, type: 'material' | 'bom', mode: 'create' | 'update', expected: Record<string, unknown>) {
    const before = await counts();
    for (const action of ['preview', 'execute'] as const) {
      const response = await send(action, type, mode, data);
      expect(response.statusCode, `${action}: ${response.body}`).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'file', ...expected });
      expect(response.json().msg).toMatch(/\S/);
    }
    expect(await counts()).toEqual(before);
  }

  it('refuses what is not an xlsx workbook, for both import types', async () => {
    const docx = Buffer.from(zipSync({ '[Content_Types].xml': strToU8('<Types/>'), 'word/document.xml': strToU8('<w:document/>') }));
    const xls = Buffer.concat([Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1]), Buffer.alloc(600)]);
    const noWorksheet = await workbookOf(() => undefined);
    for (const type of ['material', 'bom'] as const) {
      await expectRefused(Buffer.from('名称,分类\n电阻,ALPHA/电子\n'), type, 'create', { reason: 'not_xlsx' });
      await expectRefused(docx, type, 'create', { reason: 'not_xlsx' });
      await expectRefused(xls, type, 'create', { reason: 'not_xlsx' });
      await expectRefused(noWorksheet, type, 'create', { reason: 'not_xlsx' });
      await expectRefused(Buffer.alloc(0), type, 'create', {});
      await expectRefused(await workbookOf((workbook) => void workbook.addWorksheet('空')), type, 'create', { reason: 'empty' });
    }
  });

  it('refuses a BOM file of more than 10,000 rows', async () => {
    const rows = Array.from({ length: 10_001 }, () => [1, 2, 1]);
    await expectRefused(await sheetFile(['父件物料ID', '子件物料ID', '用量'], rows), 'bom', 'create', { reason: 'too_many_rows' });
  });

  it('refuses a BOM file whose header names no parent or no child column', async () => {
    const parent = await createMaterial(t, w.mgr.token, { category: 'ALPHA/成品' });
    const child = await createMaterial(t, w.mgr.token);
    for (const mode of ['create', 'update'] as const) {
      await expectRefused(await sheetFile(['子件物料ID', '用量'], [[child.id, 1]]), 'bom', mode, { msg: expect.stringContaining('父件') });
      await expectRefused(await sheetFile(['父件物料ID', '用量'], [[parent.id, 1]]), 'bom', mode, { msg: expect.stringContaining('子件') });
      await expectRefused(await sheetFile(['父件物料ID', '子件物料ID'], [[parent.id, child.id]]), 'bom', mode, { msg: expect.stringContaining('用量') });
    }
    // named by name and spec instead of id, the header is complete
    const byName = await sheetFile(['父件名称', '父件规格型号', '子件名称', '子件规格型号', '用量'], [[parent.name, parent.spec_model, child.name, child.spec_model, 1]]);
    const preview = await send('preview', 'bom', 'create', byName);
    expect(preview.statusCode, preview.body).toBe(200);
    expect(preview.json().counts).toMatchObject({ success: 1 });
  });

  it('refuses a material file in create mode without a 名称 or 分类 column', async () => {
    const name = `缺列${unique()}`;
    await expectRefused(await sheetFile(['名称', '规格型号'], [[name, 'A']]), 'material', 'create', { msg: expect.stringContaining('分类') });
    await expectRefused(await sheetFile(['物料ID', '分类'], [[null, 'ALPHA/缺列']]), 'material', 'create', { msg: expect.stringContaining('名称') });
    await expectRefused(await sheetFile(['备注'], [['x']]), 'material', 'update', { msg: expect.stringContaining('名称') });
    // update mode matches by 物料ID and changes only the columns the file has: no 分类 needed
    const material = await createMaterial(t, w.mgr.token, { name, category: 'ALPHA/缺列' });
    const update = await send('execute', 'material', 'update', await sheetFile(['物料ID', '备注'], [[material.id, '改备注']]));
    expect(update.statusCode, update.body).toBe(200);
    expect(update.json()).toMatchObject({ imported: 1, counts: { update: 1 } });
  });
});

describe('what an import reads from a workbook', () => {
  const preview = async (data: Buffer) => {
    const { body, headers } = multipartBody({ type: 'material', mode: 'create' }, { filename: 'import.xlsx', data });
    const response = await t.request('POST', `${API}/import/preview`, { token: w.mgr.token, body, headers });
    expect(response.statusCode, response.body).toBe(200);
    return response.json() as { total: number; rows: Array<{ row: number; status: string; message: string }> };
  };

  it('reads the sheet shown first in Excel, even when its part is not sheet1.xml', async () => {
    const workbook = new ExcelJS.Workbook();
    const notes = workbook.addWorksheet('说明'); // sheet1.xml
    notes.addRow(['这里不是数据']);
    const data = workbook.addWorksheet('导入'); // sheet2.xml, moved to the front below
    data.addRow(['名称', '分类']);
    data.addRow([`首表${unique()}`, 'ALPHA/排序']);
    // exceljs orders the workbook's <sheet> list by orderNo (not in its typings); part names follow creation
    Object.assign(data, { orderNo: 0 });
    Object.assign(notes, { orderNo: 1 });
    const file = Buffer.from(await workbook.xlsx.writeBuffer());
    expect(strFromU8(unzipSync(new Uint8Array(file))['xl/workbook.xml']!)).toMatch(/<sheet [^>]*name="导入"[^>]*>[\s\S]*<sheet [^>]*name="说明"/);
    const answer = await preview(file);
    expect(answer.total).toBe(1);
    expect(answer.rows[0]).toMatchObject({ row: 2, status: 'success' });
  });

  it("reads an exported, neutralised cell back as the stored text (the export's apostrophe dropped)", async () => {
    const name = `=HYPERLINK(${unique()})`;
    const material = await createMaterial(t, w.mgr.token, { name, remark: '@note' });
    const exported = await t.request('GET', `${API}/inbound/base/export?keyword=${encodeURIComponent(name)}`, { token: w.mgr.token });
    const file = await download(exported);
    expectText(cellOf(file, '物料', name, '名称'), name);
    const { body, headers } = multipartBody({ type: 'material', mode: 'update' }, { filename: 'import.xlsx', data: exported.rawPayload });
    const executed = await t.request('POST', `${API}/import/execute`, { token: w.mgr.token, body, headers });
    expect(executed.statusCode, executed.body).toBe(200);
    const stored = (await t.request('GET', `${API}/inbound/base/${material.id}`, { token: w.mgr.token })).json();
    expect(stored).toMatchObject({ name, remark: '@note' });
  });

  it('takes a formula saved without its value as an empty cell, never as the text [object Object]', async () => {
    const workbook = new ExcelJS.Workbook();
    const sheet = workbook.addWorksheet('导入');
    sheet.addRow(['名称', '分类']);
    sheet.addRow([null, 'ALPHA/公式']);
    sheet.getCell('A2').value = { formula: 'B2' } as ExcelJS.CellFormulaValue;
    const answer = await preview(Buffer.from(await workbook.xlsx.writeBuffer()));
    expect(answer.rows[0]).toMatchObject({ status: 'error', message: expect.stringContaining('名称') });
    expect(JSON.stringify(answer)).not.toContain('object Object');
  });
});
