import { Readable } from 'node:stream';
import ExcelJS from 'exceljs';
import { zipSync } from 'fflate';
import yauzl, { type Entry, type ZipFile } from 'yauzl';
import { AppError } from '../errors.js';
import { storedText } from './cells.js';

/** The most an uploaded workbook may inflate to, all entries together (contract §7: zip bombs). */
export const XLSX_MAX_UNCOMPRESSED_BYTES = 50 * 1024 * 1024;
/** Data rows (below the header) an import may hold (contract §7). */
export const XLSX_MAX_ROWS = 10_000;
/** More entries than any real workbook has: a zip of many tiny files is refused before it is walked. */
const MAX_ENTRIES = 2000;

export type ImportCell = string | number | boolean | Date | null;

export interface ImportRow {
  /** The row's number in the sheet as the user sees it (the header is row 1). */
  rowNumber: number;
  cells: ImportCell[];
}

export interface ImportSheet {
  /** Header texts, trimmed, by column (0-based). */
  header: string[];
  /** Data rows below the header, blank rows left out. */
  rows: ImportRow[];
}

export interface ReadSheetLimits {
  maxUncompressedBytes?: number;
  maxRows?: number;
}

type RefusalReason = 'not_xlsx' | 'too_large' | 'too_many_rows' | 'empty';

function refuse(reason: RefusalReason, msg: string, extras: Record<string, unknown> = {}): AppError {
  return new AppError('VALIDATION_FAILED', msg, { field: 'file', reason, ...extras });
}

const notXlsx = () => refuse('not_xlsx', '文件不是有效的 xlsx 工作簿（请使用 Excel 2007 及以上格式保存后上传）');

/** The parts of a workbook the reader needs; anything else (images, other sheets) is never inflated. */
const NEEDED_PARTS = new Set(['[Content_Types].xml', '_rels/.rels', 'xl/workbook.xml', 'xl/_rels/workbook.xml.rels', 'xl/sharedStrings.xml']);
const WORKSHEET = /^xl\/worksheets\/sheet(\d+)\.xml$/;

/**
 * Reads the first worksheet of an uploaded xlsx, refusing (400 VALIDATION_FAILED, `field: file`, `reason`)
 * what is not a workbook, what would inflate past the cap, and more data rows than the cap.
 *
 * A zip bomb is stopped before any parser inflates it: the central directory is read first (yauzl) and
 * the declared sizes summed against the cap; then only the needed parts are inflated, each stream cut
 * off by yauzl as soon as it yields more than its declared size. exceljs's streaming reader then reads a
 * zip rebuilt from exactly those checked parts, so entries it would find by walking the local headers
 * of the original (hidden or mis-declared ones) never reach it.
 */
export async function readFirstSheet(file: Buffer, limits: ReadSheetLimits = {}): Promise<ImportSheet> {
  const maxBytes = limits.maxUncompressedBytes ?? XLSX_MAX_UNCOMPRESSED_BYTES;
  const maxRows = limits.maxRows ?? XLSX_MAX_ROWS;
  const parts = await checkedParts(file, maxBytes);
  const rebuilt = Buffer.from(zipSync(parts, { level: 0 }));
  return readRows(rebuilt, maxRows);
}

const ZIP_SIGNATURE = Buffer.from([0x50, 0x4b, 0x03, 0x04]);

async function checkedParts(file: Buffer, maxBytes: number): Promise<Record<string, Uint8Array>> {
  if (file.length < ZIP_SIGNATURE.length || !file.subarray(0, 4).equals(ZIP_SIGNATURE)) throw notXlsx();
  let zip: ZipFile;
  try {
    zip = await yauzl.fromBufferPromise(file, { lazyEntries: true, validateEntrySizes: true, strictFileNames: false });
  } catch {
    throw notXlsx();
  }
  try {
    const entries = await listEntries(zip);
    const declared = entries.reduce((sum, entry) => sum + entry.uncompressedSize, 0);
    if (declared > maxBytes) throw tooLarge(maxBytes);
    const needed = entries.filter((entry) => NEEDED_PARTS.has(entry.fileName));
    if (!needed.some((entry) => entry.fileName === 'xl/workbook.xml')) throw notXlsx();
    const parts: Record<string, Uint8Array> = {};
    let inflated = 0;
    const take = async (entry: Entry) => {
      const data = await inflate(zip, entry, maxBytes - inflated, maxBytes);
      inflated += data.length;
      parts[entry.fileName] = data;
    };
    for (const entry of needed) await take(entry);
    // the worksheet last, so exceljs has the shared strings before the rows
    const firstSheet = firstSheetEntry(entries, parts);
    if (!firstSheet) throw notXlsx();
    await take(firstSheet);
    return parts;
  } finally {
    zip.close();
  }
}

/**
 * The worksheet shown first in Excel: the first <sheet> of xl/workbook.xml, through its relationship (a sheet
 * moved to the front keeps its part name, so sheet1.xml need not be first); the lowest-numbered part when
 * the workbook does not say.
 */
function firstSheetEntry(entries: Entry[], parts: Record<string, Uint8Array>): Entry | undefined {
  const text = (name: string) => (parts[name] ? new TextDecoder().decode(parts[name]) : '');
  const relationId = /<(?:\w+:)?sheet\s[^>]*?\b\w+:id="([^"]+)"/.exec(text('xl/workbook.xml'))?.[1];
  const relation = [...text('xl/_rels/workbook.xml.rels').matchAll(/<(?:\w+:)?Relationship\s[^>]*>/g)]
    .map(([element]) => ({ id: /\bId="([^"]+)"/.exec(element)?.[1], target: /\bTarget="([^"]+)"/.exec(element)?.[1] }))
    .find((candidate) => candidate.id === relationId);
  const named = relation?.target && (relation.target.startsWith('/') ? relation.target.slice(1) : `xl/${relation.target}`);
  const worksheets = entries
    .map((entry) => ({ entry, sheet: WORKSHEET.exec(entry.fileName)?.[1] }))
    .filter((candidate) => candidate.sheet !== undefined)
    .sort((a, b) => Number(a.sheet) - Number(b.sheet));
  return (worksheets.find((candidate) => candidate.entry.fileName === named) ?? worksheets[0])?.entry;
}

const tooLarge = (maxBytes: number) =>
  refuse('too_large', `文件解压后超过 ${Math.round(maxBytes / 1024 / 1024)} MB，拒绝导入（可能是压缩炸弹）`, { max_uncompressed_bytes: maxBytes });

function listEntries(zip: ZipFile): Promise<Entry[]> {
  if (zip.entryCount > MAX_ENTRIES) return Promise.reject(notXlsx());
  return new Promise((resolve, reject) => {
    const entries: Entry[] = [];
    zip.on('entry', (entry: Entry) => {
      entries.push(entry);
      zip.readEntry();
    });
    zip.on('end', () => resolve(entries));
    zip.on('error', () => reject(notXlsx()));
    zip.readEntry();
  });
}

/**
 * One entry's bytes, at most `budget`; yauzl also fails the stream the moment it yields more than the
 * entry's declared size (a central directory that understates sizes is a bomb too).
 */
function inflate(zip: ZipFile, entry: Entry, budget: number, maxBytes: number): Promise<Uint8Array> {
  if (entry.isEncrypted() || !entry.canDecodeFileData()) return Promise.reject(notXlsx());
  return new Promise((resolve, reject) => {
    zip.openReadStream(entry, (error, stream) => {
      if (error || !stream) return reject(notXlsx());
      const chunks: Buffer[] = [];
      let size = 0;
      stream.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > budget) {
          stream.destroy();
          reject(tooLarge(maxBytes));
          return;
        }
        chunks.push(chunk);
      });
      stream.on('error', (streamError: Error) => reject(/too many bytes/i.test(streamError.message) ? tooLarge(maxBytes) : notXlsx()));
      stream.on('end', () => resolve(Buffer.concat(chunks)));
    });
  });
}

async function readRows(workbookZip: Buffer, maxRows: number): Promise<ImportSheet> {
  const reader = new ExcelJS.stream.xlsx.WorkbookReader(Readable.from([workbookZip]), {
    worksheets: 'emit',
    sharedStrings: 'cache',
    hyperlinks: 'ignore',
    styles: 'ignore',
    entries: 'ignore',
  });
  let header: string[] | undefined;
  const rows: ImportRow[] = [];
  try {
    for await (const worksheet of reader) {
      for await (const row of worksheet) {
        const cells = cellsOf(row.values as unknown[]);
        if (cells.every((cell) => cell === null)) continue;
        if (!header) {
          header = cells.map((cell) => (cell === null ? '' : String(cell).trim()));
          continue;
        }
        if (rows.length === maxRows) {
          throw refuse('too_many_rows', `文件超过 ${maxRows} 行数据，请拆分后分批导入`, { max_rows: maxRows });
        }
        rows.push({ rowNumber: row.number, cells });
      }
      break; // the first worksheet only
    }
  } catch (error) {
    if (error instanceof AppError) throw error;
    throw notXlsx();
  }
  if (!header) throw refuse('empty', '工作表为空：第一行应为表头');
  return { header, rows };
}

/** exceljs row values (1-based, sparse; rich text, formulas, hyperlinks as objects) as plain cells. */
function cellsOf(values: unknown[]): ImportCell[] {
  const cells: ImportCell[] = [];
  for (let column = 1; column < values.length; column++) cells.push(plainCell(values[column]));
  return cells;
}

function plainCell(value: unknown): ImportCell {
  if (value === undefined || value === null) return null;
  // the apostrophe an export put before formula-like text (neutralisedText) is not part of the value
  if (typeof value === 'string') return value.trim() === '' ? null : storedText(value);
  if (typeof value === 'number' || typeof value === 'boolean' || value instanceof Date) return value;
  if (typeof value === 'object') {
    const object = value as { richText?: { text: string }[]; result?: unknown; text?: unknown; error?: unknown };
    if (Array.isArray(object.richText)) return plainCell(object.richText.map((run) => run.text).join(''));
    if ('result' in object) return plainCell(object.result);
    if ('text' in object) return plainCell(object.text);
    if ('error' in object) return null;
    // a formula saved without its computed value (written by a program, never opened in Excel): no value to import
    if ('formula' in object || 'sharedFormula' in object) return null;
  }
  return String(value);
}
