import { PassThrough, type Readable, type Writable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import ExcelJS from 'exceljs';
import { HEADER_STYLE, displayWidth, toCell, type Cell, type CellType } from './cells.js';

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

/** Rows read before the columns are sized; the streaming writer fixes widths before the first row. */
const WIDTH_SAMPLE_ROWS = 200;
const MIN_WIDTH = 8;
const MAX_WIDTH = 60;
const HEADER_PADDING = 4; // bold text plus the filter button
const CELL_PADDING = 2;
const FROZEN_HEADER: Partial<ExcelJS.WorksheetView> = { state: 'frozen', xSplit: 0, ySplit: 1, topLeftCell: 'A2', activeCell: 'A2' };

type Worksheet = ExcelJS.Worksheet;

function fittedWidth(header: string, sample: Cell[]): number {
  const widest = sample.reduce((max, cell) => Math.max(max, cell.width + CELL_PADDING), displayWidth(header) + HEADER_PADDING);
  return Math.min(MAX_WIDTH, Math.max(MIN_WIDTH, widest));
}

function appendRow(worksheet: Worksheet, cells: readonly Cell[], style?: Partial<ExcelJS.Style>): void {
  const row = worksheet.addRow(cells.map((cell) => cell.value));
  cells.forEach((cell, index) => {
    const styleOfCell = style ?? cell.style;
    if (styleOfCell && cell.value !== null) row.getCell(index + 1).style = styleOfCell;
  });
  row.commit();
}

/** Opens the sheet once the sample is read: frozen bold header, sized columns, then the sampled rows. */
function openSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, sheet: SheetSpec<never>, sample: Cell[][]): Worksheet {
  const worksheet = workbook.addWorksheet(sheet.name, { views: [FROZEN_HEADER] });
  worksheet.columns = sheet.columns.map((column, index) => ({
    width: column.width ?? fittedWidth(column.header, sample.map((cells) => cells[index]!)),
  }));
  appendRow(worksheet, sheet.columns.map((column) => ({ value: column.header, width: 0 })), HEADER_STYLE);
  for (const cells of sample) appendRow(worksheet, cells);
  return worksheet;
}

async function writeSheet(workbook: ExcelJS.stream.xlsx.WorkbookWriter, sheet: SheetSpec<never>): Promise<void> {
  const sample: Cell[][] = [];
  let worksheet: Worksheet | undefined;
  let rowCount = 0;
  for await (const row of sheet.rows) {
    const cells = sheet.columns.map((column) => toCell(column.value(row), column.type));
    rowCount += 1;
    if (worksheet) appendRow(worksheet, cells);
    else {
      sample.push(cells);
      if (sample.length === WIDTH_SAMPLE_ROWS) worksheet = openSheet(workbook, sheet, sample);
    }
  }
  worksheet ??= openSheet(workbook, sheet, sample);
  // The filter spans header and data, so sorting and filtering in any program covers every row.
  if (sheet.columns.length > 0) worksheet.autoFilter = { from: { row: 1, column: 1 }, to: { row: rowCount + 1, column: sheet.columns.length } };
  worksheet.commit();
}

/**
 * Writes the sheets into `output` with the streaming writer, so a large export never holds a whole
 * workbook. Every sheet has a bold, frozen header row with a filter and sized columns; times are
 * date cells in Beijing time; text is written as text cells that no spreadsheet evaluates as a
 * formula (contract §7), keeping what the user sees exactly the stored text.
 */
export async function writeWorkbookTo(sheets: SheetSpec<never>[], output: Writable): Promise<void> {
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream: output, useStyles: true, useSharedStrings: true });
  for (const sheet of sheets) await writeSheet(workbook, sheet);
  await workbook.commit();
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
