import ExcelJS from 'exceljs';

/**
 * Cells that begin with =, +, - or @ would run as formulas in a spreadsheet program; they are
 * written with a leading apostrophe so they stay text (contract §7). Numbers stay numbers.
 */
export function neutraliseCell(value: unknown): string | number | Date | null {
  if (value === null || value === undefined) return null;
  if (typeof value === 'number' || value instanceof Date) return value;
  const text = typeof value === 'string' ? value : typeof value === 'object' ? JSON.stringify(value) : String(value);
  return /^[=+\-@]/.test(text) ? `'${text}` : text;
}

export interface SheetColumn<Row> {
  header: string;
  width?: number;
  value: (row: Row) => unknown;
}

export interface SheetSpec<Row> {
  name: string;
  columns: SheetColumn<Row>[];
  rows: Iterable<Row> | AsyncIterable<Row>;
}

/** Writes the sheets with the streaming writer, so large exports never hold a whole workbook. */
export async function writeWorkbook(sheets: SheetSpec<never>[]): Promise<Buffer> {
  const { PassThrough } = await import('node:stream');
  const stream = new PassThrough();
  const chunks: Buffer[] = [];
  stream.on('data', (chunk: Buffer) => chunks.push(chunk));
  const workbook = new ExcelJS.stream.xlsx.WorkbookWriter({ stream, useStyles: false, useSharedStrings: false });
  for (const sheet of sheets) {
    const worksheet = workbook.addWorksheet(sheet.name);
    worksheet.columns = sheet.columns.map((column) => ({ header: column.header, width: column.width ?? 16 }));
    for await (const row of sheet.rows) {
      worksheet.addRow(sheet.columns.map((column) => neutraliseCell(column.value(row)))).commit();
    }
    worksheet.commit();
  }
  await workbook.commit();
  return Buffer.concat(chunks);
}

export const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A Content-Disposition value that carries a Chinese file name safely. */
export function attachmentHeader(fileName: string): string {
  return `attachment; filename="export.xlsx"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}
