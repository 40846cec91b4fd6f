import { PassThrough, type Readable, type Writable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { cellWidth, displayWidth, toCell, type Cell, type CellType } from './cells.js';
import {
  columnLetters,
  contentTypesXml,
  headerRowXml,
  ROOT_RELS_XML,
  rowXml,
  sheetEndXml,
  sheetStartXml,
  STYLES_XML,
  workbookRelsXml,
  workbookXml,
  type SheetEntry,
} from './sheet-xml.js';
import { ZipStream, type ZipEntry } from './zip-stream.js';

export { beijingWallClock, displayWidth, type CellType } from './cells.js';

export interface SheetColumn<Row> {
  header: string;
  /** Type of the column's cells (see CellType); without it the value decides. */
  type?: CellType;
  /** Fixed width in characters; without it the header and the first rows size the column. */
  width?: number;
  value: (row: Row) => unknown;
}

export interface SheetSpec<Row> {
  name: string;
  columns: SheetColumn<Row>[];
  rows: Iterable<Row> | AsyncIterable<Row>;
}

/** Lets a typed sheet join a workbook of sheets with other row types. */
export function sheetOf<Row>(sheet: SheetSpec<Row>): SheetSpec<never> {
  return sheet as unknown as SheetSpec<never>;
}

/** Rows read before the columns are sized; the widths precede the first row in the file. */
const WIDTH_SAMPLE_ROWS = 200;
const MIN_WIDTH = 8;
const MAX_WIDTH = 60;
const HEADER_PADDING = 4; // bold text plus the filter button
const CELL_PADDING = 2;
/** XML collected before it goes to the zip: each hand-over may wait for the deflater, which yields the event loop. */
const CHUNK_CHARS = 64 * 1024;

function fittedWidth(header: string, sample: readonly Cell[]): number {
  const widest = sample.reduce((max, cell) => Math.max(max, cellWidth(cell) + CELL_PADDING), displayWidth(header) + HEADER_PADDING);
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, widest));
}

/** A sheet's XML on its way into its zip entry, in chunks of about CHUNK_CHARS. */
class SheetText {
  private pending = '';

  constructor(private readonly entry: ZipEntry) {}

  async add(xml: string): Promise<void> {
    this.pending += xml;
    if (this.pending.length >= CHUNK_CHARS) await this.flush();
  }

  async flush(): Promise<void> {
    const text = this.pending;
    this.pending = '';
    if (text) await this.entry.write(text);
  }
}

/** Opens the sheet once the sample is read: frozen pane, sized columns, bold header, then the sampled rows. */
async function openSheet(text: SheetText, sheet: SheetSpec<never>, sample: Cell[][], letters: string[], selected: boolean): Promise<void> {
  const widths = sheet.columns.map((column, index) => column.width ?? fittedWidth(column.header, sample.map((cells) => cells[index]!)));
  await text.add(sheetStartXml(widths, selected) + headerRowXml(sheet.columns.map((column) => column.header), letters));
  for (const [index, cells] of sample.entries()) await text.add(rowXml(index + 2, cells, letters));
}

async function writeSheet(zip: ZipStream, sheet: SheetSpec<never>, index: number): Promise<SheetEntry> {
  const entry = zip.entry(`xl/worksheets/sheet${index + 1}.xml`);
  const text = new SheetText(entry);
  const letters = sheet.columns.map((_, column) => columnLetters(column));
  let sample: Cell[][] | null = [];
  let rowCount = 0;
  for await (const row of sheet.rows) {
    const cells = sheet.columns.map((column) => toCell(column.value(row), column.type));
    rowCount += 1;
    if (!sample) await text.add(rowXml(rowCount + 1, cells, letters));
    else if (sample.push(cells) === WIDTH_SAMPLE_ROWS) {
      await openSheet(text, sheet, sample, letters, index === 0);
      sample = null;
    }
  }
  if (sample) await openSheet(text, sheet, sample, letters, index === 0);
  // The filter spans header and data, so sorting and filtering in any program covers every row.
  const filterRange = letters.length > 0 ? `A1:${letters.at(-1)}${rowCount + 1}` : null;
  await text.add(sheetEndXml(filterRange));
  await text.flush();
  await entry.close();
  return { name: sheet.name, filterRange };
}

async function writePart(zip: ZipStream, name: string, xml: string): Promise<void> {
  const entry = zip.entry(name);
  await entry.write(xml);
  await entry.close();
}

/**
 * Writes the sheets into `output` as they are read, so a large export never holds a whole workbook
 * (a few chunks at most: writing waits while the output is full). Every sheet has a bold, frozen
 * header row with a filter and sized columns; times are date cells in Beijing time; text is written
 * as inline text cells that no spreadsheet evaluates as a formula (contract §7), keeping what the
 * user sees exactly the stored text. Ends `output` when done; on failure `output` is the caller's.
 */
export async function writeWorkbookTo(sheets: SheetSpec<never>[], output: Writable): Promise<void> {
  const zip = new ZipStream(output);
  try {
    await writePart(zip, '[Content_Types].xml', contentTypesXml(sheets.length));
    await writePart(zip, '_rels/.rels', ROOT_RELS_XML);
    await writePart(zip, 'xl/styles.xml', STYLES_XML);
    const entries: SheetEntry[] = [];
    for (const [index, sheet] of sheets.entries()) entries.push(await writeSheet(zip, sheet, index));
    await writePart(zip, 'xl/workbook.xml', workbookXml(entries));
    await writePart(zip, 'xl/_rels/workbook.xml.rels', workbookRelsXml(sheets.length));
    await zip.end();
  } catch (error) {
    zip.abort();
    throw error;
  }
  output.end();
}

/** The workbook as one Buffer (exports that already hold their rows). */
export async function writeWorkbook(sheets: SheetSpec<never>[]): Promise<Buffer> {
  const stream = new PassThrough();
  const [, workbook] = await Promise.all([
    writeWorkbookTo(sheets, stream).catch((error: unknown) => {
      stream.destroy(error as Error);
      throw error;
    }),
    buffer(stream),
  ]);
  return workbook;
}

/**
 * The workbook as a stream for `reply.send(...)`, for exports that read their rows as they go
 * (async iterables). An error after the first bytes aborts the download.
 */
export function streamWorkbook(sheets: SheetSpec<never>[]): Readable {
  const stream = new PassThrough();
  writeWorkbookTo(sheets, stream).catch((error: unknown) => stream.destroy(error as Error));
  return stream;
}

export const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A Content-Disposition value that carries a Chinese file name safely. */
export function attachmentHeader(fileName: string): string {
  return `attachment; filename="export.xlsx"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
