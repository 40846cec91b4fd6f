import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { crc32, type DeflateRaw } from 'node:zlib';
import { SheetWriter, type SheetColumn, type TextSink } from './sheet-writer.js';
import { entryDeflater, type DeflatedPart } from './zip-stream.js';

/** Text deflated into a temporary file as it comes (created at the first write), to be copied into a zip later. */
class DeflatedFile implements TextSink {
  private readonly path = join(tmpdir(), `xlsx-sheet-${randomUUID()}.deflate`);
  private deflate: DeflateRaw | null = null;
  private written: Promise<void> | null = null;
  private crc = 0;
  private size = 0;

  async write(text: string): Promise<void> {
    const deflate = (this.deflate ??= this.open());
    const bytes = Buffer.from(text, 'utf8');
    this.crc = crc32(bytes, this.crc);
    this.size += bytes.length;
    if (!deflate.write(bytes)) await once(deflate, 'drain'); // rejects if the deflater or the file fails
  }

  async close(): Promise<DeflatedPart> {
    this.deflate?.end();
    await this.written;
    return { crc: this.crc, size: this.size, chunks: () => createReadStream(this.path) };
  }

  async discard(): Promise<void> {
    this.deflate?.destroy();
    await this.written?.catch(() => undefined);
    await rm(this.path, { force: true });
  }

  private open(): DeflateRaw {
    const deflate = entryDeflater();
    this.written = pipeline(deflate, createWriteStream(this.path, { flags: 'wx', mode: 0o600 }));
    this.written.catch(() => undefined); // observed by close() and discard()
    return deflate;
  }
}

/**
 * A sheet whose rows are handed over while an earlier sheet of the same workbook is written, so one
 * read of the data fills both (the audit log and its per-field change list). Its XML is deflated
 * into a temporary file meanwhile (memory stays flat whatever its size) and copied into the zip at
 * its turn; the file is removed when the workbook is done or has failed. It cannot be the first sheet.
 */
export class SpooledSheet<Row> {
  private readonly file = new DeflatedFile();
  private readonly writer: SheetWriter<Row>;

  constructor(
    readonly name: string,
    columns: readonly SheetColumn<Row>[],
  ) {
    this.writer = new SheetWriter(this.file, columns, false);
  }

  /** Adds a row; waits while the temporary file is being written (back-pressure). */
  add(row: Row): Promise<void> {
    return this.writer.add(row);
  }

  /** Called by the workbook writer at the sheet's turn: every earlier sheet, and so every row, is written. */
  async finish(): Promise<{ filterRange: string | null; part: DeflatedPart }> {
    const filterRange = await this.writer.finish();
    return { filterRange, part: await this.file.close() };
  }

  discard(): Promise<void> {
    return this.file.discard();
  }
}
