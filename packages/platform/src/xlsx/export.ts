import { PassThrough, type Readable, type Writable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import type { FastifyReply } from 'fastify';
import { SheetWriter, type SheetColumn } from './sheet-writer.js';
import { SpooledSheet } from './sheet-spool.js';
import { contentTypesXml, ROOT_RELS_XML, STYLES_XML, workbookRelsXml, workbookXml, type SheetEntry } from './sheet-xml.js';
import { ZipStream } from './zip-stream.js';

export { beijingWallClock, displayWidth, type CellType } from './cells.js';
export { SpooledSheet } from './sheet-spool.js';
export type { SheetColumn } from './sheet-writer.js';

export interface SheetSpec<Row> {
  name: string;
  columns: SheetColumn<Row>[];
  rows: Iterable<Row> | AsyncIterable<Row>;
}

/** A sheet of a workbook: its rows read at its turn, or handed over earlier (SpooledSheet). */
export type WorkbookSheet = SheetSpec<never> | SpooledSheet<never>;

/** Lets a typed sheet join a workbook of sheets with other row types. */
export function sheetOf<Row>(sheet: SheetSpec<Row>): SheetSpec<never> {
  return sheet as unknown as SheetSpec<never>;
}

/** Compressed bytes the streamed workbook holds for a slow reader before the writer waits. */
const STREAM_BUFFER_BYTES = 1 << 20;

const sheetPart = (index: number) => `xl/worksheets/sheet${index + 1}.xml`;

async function writeSheet(zip: ZipStream, sheet: SheetSpec<never>, index: number): Promise<SheetEntry> {
  const entry = zip.entry(sheetPart(index));
  const writer = new SheetWriter(entry, sheet.columns, index === 0);
  for await (const row of sheet.rows) await writer.add(row);
  const filterRange = await writer.finish();
  await entry.close();
  return { name: sheet.name, filterRange };
}

async function copySpooledSheet(zip: ZipStream, sheet: SpooledSheet<never>, index: number): Promise<SheetEntry> {
  const { filterRange, part } = await sheet.finish();
  await zip.copy(sheetPart(index), part);
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
 * as inline text cells that no spreadsheet evaluates as a formula, formula-like text behind an
 * apostrophe (contract §7). Ends `output` when done; on failure `output` is the caller's.
 */
export async function writeWorkbookTo(sheets: WorkbookSheet[], output: Writable): Promise<void> {
  if (sheets[0] instanceof SpooledSheet) throw new Error('a spooled sheet is filled by an earlier sheet and cannot come first');
  const zip = new ZipStream(output);
  try {
    await writePart(zip, '[Content_Types].xml', contentTypesXml(sheets.length));
    await writePart(zip, '_rels/.rels', ROOT_RELS_XML);
    await writePart(zip, 'xl/styles.xml', STYLES_XML);
    const entries: SheetEntry[] = [];
    for (const [index, sheet] of sheets.entries()) {
      entries.push(sheet instanceof SpooledSheet ? await copySpooledSheet(zip, sheet, index) : await writeSheet(zip, sheet, index));
    }
    await writePart(zip, 'xl/workbook.xml', workbookXml(entries));
    await writePart(zip, 'xl/_rels/workbook.xml.rels', workbookRelsXml(sheets.length));
    await zip.end();
  } catch (error) {
    zip.abort();
    throw error;
  } finally {
    await Promise.all(sheets.map((sheet) => (sheet instanceof SpooledSheet ? sheet.discard() : undefined)));
  }
  output.end();
}

/** The workbook as one Buffer (exports that already hold their rows). */
export async function writeWorkbook(sheets: WorkbookSheet[]): Promise<Buffer> {
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
export function streamWorkbook(sheets: WorkbookSheet[]): Readable {
  // Room for several batches of compressed rows, so the writer waits for the client less often.
  const stream = new PassThrough({ highWaterMark: STREAM_BUFFER_BYTES });
  writeWorkbookTo(sheets, stream).catch((error: unknown) => stream.destroy(error as Error));
  return stream;
}

export const XLSX_MIME = 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet';

/** A Content-Disposition value that carries a Chinese file name safely. */
export function attachmentHeader(fileName: string): string {
  return `attachment; filename="export.xlsx"; filename*=UTF-8''${encodeURIComponent(fileName)}`;
}

/** An xlsx download: the workbook (a Buffer, or a stream written as it goes) as an attachment named `fileName`. */
export function sendXlsx(reply: FastifyReply, fileName: string, workbook: Buffer | Readable): FastifyReply {
  return reply.header('content-type', XLSX_MIME).header('content-disposition', attachmentHeader(fileName)).send(workbook);
}
