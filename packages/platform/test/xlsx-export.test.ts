import { setTimeout as sleep } from 'node:timers/promises';
import { PassThrough } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import ExcelJS from 'exceljs';
import JSZip from 'jszip'; // exceljs's own zip library, to look at the sheet XML
import { describe, expect, it } from 'vitest';
import { readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { SpooledSheet, sheetOf, streamWorkbook, writeWorkbook, writeWorkbookTo, type SheetSpec } from '../src/xlsx/export.js';

interface Line {
  name: string;
  note: unknown;
  quantity: unknown;
  at: unknown;
  day: unknown;
}

const line = (overrides: Partial<Line>): Line => ({ name: '螺丝', note: null, quantity: 1, at: null, day: null, ...overrides });

const sheet = (rows: Iterable<Line> | AsyncIterable<Line>): SheetSpec<Line> => ({
  name: '明细',
  columns: [
    { header: '名称', value: (row) => row.name },
    { header: '备注', type: 'text', value: (row) => row.note },
    { header: '数量', type: 'number', value: (row) => row.quantity },
    { header: '时间', type: 'datetime', value: (row) => row.at },
    { header: '日期', type: 'date', value: (row) => row.day },
  ],
  rows,
});

async function readBack(file: Buffer): Promise<ExcelJS.Workbook> {
  const workbook = new ExcelJS.Workbook();
  await workbook.xlsx.load(file as unknown as ArrayBuffer);
  return workbook;
}

const cellsOf = (worksheet: ExcelJS.Worksheet, row: number) => [1, 2, 3, 4, 5].map((column) => worksheet.getRow(row).getCell(column));

describe('writeWorkbook', () => {
  it('writes times as date cells showing the Beijing wall-clock time', async () => {
    const workbook = await readBack(
      await writeWorkbook([sheetOf(sheet([line({ at: '2026-11-23T18:50:41.521Z', day: '2026-11-23' }), line({ at: new Date('2026-01-01T00:00:00Z'), day: new Date('2025-12-31T16:30:00Z') })]))]),
    );
    const worksheet = workbook.getWorksheet('明细')!;
    const [, , , at, day] = cellsOf(worksheet, 2);
    expect(at!.type).toBe(ExcelJS.ValueType.Date);
    expect((at!.value as Date).toISOString()).toBe('2026-11-24T02:50:41.000Z'); // wall clock, whole seconds
    expect(at!.numFmt).toBe('yyyy-mm-dd hh:mm:ss');
    expect(day!.type).toBe(ExcelJS.ValueType.Date);
    expect((day!.value as Date).toISOString()).toBe('2026-11-23T00:00:00.000Z');
    expect(day!.numFmt).toBe('yyyy-mm-dd');
    const [, , , nextAt, nextDay] = cellsOf(worksheet, 3);
    expect((nextAt!.value as Date).toISOString()).toBe('2026-01-01T08:00:00.000Z');
    expect((nextDay!.value as Date).toISOString()).toBe('2026-01-01T00:00:00.000Z'); // the Beijing day of the instant
  });

  it('recognises Date objects and ISO instants in untyped columns, and leaves other text alone', async () => {
    const rows = [{ a: new Date('2026-03-01T04:00:00Z'), b: '2026-03-01T04:00:00+08:00', c: '2026-03-01', d: 'SKU-2026-03-01T' }];
    const untyped = { name: '自动', columns: ['a', 'b', 'c', 'd'].map((key) => ({ header: key, value: (row: Record<string, unknown>) => row[key] })), rows };
    const worksheet = (await readBack(await writeWorkbook([sheetOf(untyped)]))).worksheets[0]!;
    const [a, b, c, d] = [1, 2, 3, 4].map((column) => worksheet.getRow(2).getCell(column));
    expect(a!.type).toBe(ExcelJS.ValueType.Date);
    expect((a!.value as Date).toISOString()).toBe('2026-03-01T12:00:00.000Z');
    expect((b!.value as Date).toISOString()).toBe('2026-03-01T04:00:00.000Z');
    expect(c!.value).toBe('2026-03-01');
    expect(d!.value).toBe('SKU-2026-03-01T');
  });

  it('neutralises formula-like text: a plain string cell behind an apostrophe, never a formula', async () => {
    const dangerous = ['=1+1', '+cmd|/c calc', '@SUM(A1)', '-2+3', '=HYPERLINK("http://evil","x")'];
    const file = await writeWorkbook([sheetOf(sheet(dangerous.map((note) => line({ name: note, note }))))]);
    const worksheet = (await readBack(file)).worksheets[0]!;
    dangerous.forEach((text, index) => {
      for (const cell of cellsOf(worksheet, index + 2).slice(0, 2)) {
        expect(cell.type).toBe(ExcelJS.ValueType.String);
        expect(cell.formula).toBeUndefined();
        expect(cell.value).toBe(`'${text}`);
        expect(cell.text).toBe(`'${text}`);
        expect(cell.numFmt).toBe('@'); // Text format: editing the cell keeps it text
      }
    });
    // In the file itself: inline-string cells (constant text), and no formula element anywhere.
    const zip = await JSZip.loadAsync(file);
    const xml = await zip.file('xl/worksheets/sheet1.xml')!.async('string');
    expect(xml).toContain('<c r="A2" s="1" t="inlineStr"><is><t>\'=1+1</t></is></c>');
    expect(xml).toContain('<c r="A6" s="1" t="inlineStr"><is><t>\'=HYPERLINK(&quot;http://evil&quot;,&quot;x&quot;)</t></is></c>');
    expect(xml).not.toMatch(/<f[ >]/);
    expect(zip.file('xl/sharedStrings.xml')).toBeNull();
  });

  it('keeps text exactly: markup, line breaks, edge spaces; drops what XML cannot carry', async () => {
    const texts = ['<急件> & "引号"', '  两端空格 ', '第一行\n第二行', 'tab\there', 'bell\u0007gone', '😀 emoji'];
    const spec = { name: "O'Brien 表", columns: [{ header: '文本', type: 'text' as const, value: (row: string) => row }], rows: texts };
    const workbook = await readBack(await writeWorkbook([sheetOf(spec)]));
    const worksheet = workbook.getWorksheet("O'Brien 表")!;
    const values = texts.map((_, index) => worksheet.getRow(index + 2).getCell(1).value);
    expect(values).toEqual([...texts.slice(0, 4), 'bellgone', '😀 emoji']);
    expect(worksheet.autoFilter).toBe('A1:A7');
  });

  it('keeps numbers as numbers and numeric text in text columns as text', async () => {
    const rows = [line({ quantity: -5, note: '-5' }), line({ quantity: '12.50', note: 7 }), line({ quantity: '—', note: true })];
    const worksheet = (await readBack(await writeWorkbook([sheetOf(sheet(rows))]))).worksheets[0]!;
    const [, note1, quantity1] = cellsOf(worksheet, 2);
    expect(quantity1!.type).toBe(ExcelJS.ValueType.Number);
    expect(quantity1!.value).toBe(-5);
    expect(note1!.type).toBe(ExcelJS.ValueType.String);
    expect(note1!.value).toBe("'-5"); // text, neutralised like every text beginning with -
    const [, note2, quantity2] = cellsOf(worksheet, 3);
    expect(quantity2!.value).toBe(12.5);
    expect(note2!.value).toBe('7');
    const [, note3, quantity3] = cellsOf(worksheet, 4);
    expect(quantity3!.value).toBe('—'); // a placeholder stays visible as text
    expect(note3!.value).toBe('是');
  });

  it('freezes a bold header row, filters over header and data, and sizes the columns', async () => {
    const rows = [line({ name: '一个很长很长很长的物料名称', note: 'short', at: new Date() }), line({ name: 'x' })];
    const worksheet = (await readBack(await writeWorkbook([sheetOf(sheet(rows))]))).worksheets[0]!;
    expect(worksheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1, topLeftCell: 'A2' });
    expect(worksheet.autoFilter).toBe('A1:E3');
    expect(worksheet.getRow(1).values).toEqual([undefined, '名称', '备注', '数量', '时间', '日期']);
    expect(worksheet.getRow(1).getCell(1).font).toMatchObject({ bold: true });
    expect(worksheet.getColumn(1).width).toBe(28); // 13 CJK characters count double, plus padding
    expect(worksheet.getColumn(2).width).toBe(8); // 备注 + filter button
    expect(worksheet.getColumn(4).width).toBe(21); // yyyy-mm-dd hh:mm:ss
  });

  it('uses a declared width, and caps computed widths', async () => {
    const spec = { name: 'w', columns: [{ header: 'a', width: 33, value: () => 'x' }, { header: 'b', value: () => 'y'.repeat(500) }], rows: [1] };
    const worksheet = (await readBack(await writeWorkbook([sheetOf(spec)]))).worksheets[0]!;
    expect(worksheet.getColumn(1).width).toBe(33);
    expect(worksheet.getColumn(2).width).toBe(60);
  });

  it('writes an empty sheet as header, frozen and filtered', async () => {
    const worksheet = (await readBack(await writeWorkbook([sheetOf(sheet([]))]))).worksheets[0]!;
    expect(worksheet.rowCount).toBe(1);
    expect(worksheet.autoFilter).toBe('A1:E1');
    expect(worksheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
  });

  it('streams many rows from an async source into several sheets', async () => {
    async function* many(count: number) {
      for (let i = 0; i < count; i += 1) yield line({ name: `物料${i}`, quantity: i, at: new Date(Date.UTC(2026, 0, 1, 0, 0, i)) });
    }
    const other = { name: '汇总', columns: [{ header: '条数', type: 'number' as const, value: (row: { n: number }) => row.n }], rows: [{ n: 5000 }] };
    const workbook = await readBack(await buffer(streamWorkbook([sheetOf(sheet(many(5000))), sheetOf(other)])));
    const worksheet = workbook.getWorksheet('明细')!;
    expect(worksheet.rowCount).toBe(5001);
    expect(worksheet.autoFilter).toBe('A1:E5001');
    expect(worksheet.getRow(5001).getCell(3).value).toBe(4999);
    expect((worksheet.getRow(5001).getCell(4).value as Date).toISOString()).toBe('2026-01-01T09:23:19.000Z');
    expect(workbook.getWorksheet('汇总')!.getRow(2).getCell(1).value).toBe(5000);
  });

  it('stops reading rows while the output is not read, and finishes once it is', async () => {
    let pulled = 0;
    async function* rows() {
      for (let i = 0; i < 30_000; i += 1) {
        pulled += 1;
        yield line({ name: `物料${i}`, note: `备注${i}-${'x'.repeat(1000)}`, quantity: i }); // 30 MB of XML
      }
    }
    const output = new PassThrough({ highWaterMark: 16 * 1024 });
    const writing = writeWorkbookTo([sheetOf(sheet(rows()))], output);
    await sleep(300);
    const pulledWhileBlocked = pulled;
    await sleep(300);
    expect(pulled).toBe(pulledWhileBlocked); // waiting for the reader, not buffering the rest
    expect(pulled).toBeLessThan(10_000);
    const [file] = await Promise.all([buffer(output), writing]);
    expect(pulled).toBe(30_000);
    expect((await readBack(file)).worksheets[0]!.rowCount).toBe(30_001);
  });

  it('gives up and closes the row source when the reader goes away', async () => {
    let closed = false;
    let pulled = 0;
    async function* rows() {
      try {
        for (let i = 0; ; i += 1, pulled += 1) yield line({ name: `物料${i}`, note: 'n'.repeat(200) });
      } finally {
        closed = true;
      }
    }
    const output = new PassThrough({ highWaterMark: 16 * 1024 });
    const writing = writeWorkbookTo([sheetOf(sheet(rows()))], output);
    while (pulled < 300) await sleep(10); // past the width sample: writing, soon blocked on the full output
    output.destroy();
    await expect(writing).rejects.toThrow();
    expect(closed).toBe(true);
  });

  it('fills a spooled sheet from the rows of an earlier sheet, read once, and leaves no temporary file', async () => {
    const spoolFiles = () => readdirSync(tmpdir()).filter((name) => name.startsWith('xlsx-sheet-'));
    const before = spoolFiles().length;
    const details = new SpooledSheet('明细项', [
      { header: '编号', type: 'number', value: (row: { id: number; part: string }) => row.id },
      { header: '部件', type: 'text', value: (row: { id: number; part: string }) => row.part },
    ]);
    let reads = 0;
    async function* orders() {
      for (let id = 1; id <= 3000; id += 1) {
        reads += 1;
        for (const part of ['=A1', `部件${id}`]) await details.add({ id, part });
        yield line({ name: `订单${id}`, quantity: id });
      }
    }
    const workbook = await readBack(await writeWorkbook([sheetOf(sheet(orders())), details]));
    expect(reads).toBe(3000);
    expect(workbook.worksheets.map((worksheet) => worksheet.name)).toEqual(['明细', '明细项']);
    const spooled = workbook.getWorksheet('明细项')!;
    expect(spooled.rowCount).toBe(6001);
    expect(spooled.autoFilter).toBe('A1:B6001');
    expect(spooled.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(spooled.getRow(1).getCell(1).font).toMatchObject({ bold: true });
    expect([2, 3, 6001].map((row) => spooled.getRow(row).values)).toEqual([
      [undefined, 1, "'=A1"],
      [undefined, 1, '部件1'],
      [undefined, 3000, '部件3000'],
    ]);
    expect(spooled.getRow(2).getCell(2).type).toBe(ExcelJS.ValueType.String);
    expect(spoolFiles()).toHaveLength(before);

    const failing = new SpooledSheet('x', [{ header: 'a', value: (row: number) => row }]);
    async function* broken() {
      await failing.add(1);
      yield line({});
      throw new Error('读取失败');
    }
    await expect(writeWorkbook([sheetOf(sheet(broken())), failing])).rejects.toThrow('读取失败');
    expect(spoolFiles()).toHaveLength(before);
  });

  it('rejects when a row source fails', async () => {
    async function* failing() {
      yield line({});
      throw new Error('读取失败');
    }
    await expect(writeWorkbook([sheetOf(sheet(failing()))])).rejects.toThrow('读取失败');
  });
});
