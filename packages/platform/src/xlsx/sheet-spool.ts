import { randomUUID } from 'node:crypto';
import { createReadStream, createWriteStream } from 'node:fs';
import { rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pipeline } from 'node:stream/promises';
import { SheetWriter, type SheetColumn, type TextSink } from './sheet-writer.js';
import { DeflateInput, type DeflatedPart } from './zip-stream.js';

/** Text deflated into a temporary file as it comes (created at the first write), to be copied into a zip later. */
class DeflatedFile implements TextSink {
  private readonly path = join(tmpdir(), `xlsx-sheet-${randomUUID()}.deflate`);
  private input: DeflateInput | null = null;
  private written: Promise<void> | null = null;

  write(text: string): Promise<void> | undefined {
    return (this.input ??= this.open()).write(text);
  }

  async close(): Promise<DeflatedPart> {
    const input = (this.input ??= this.open());
    await input.end();
    await this.written;
    return { crc: input.crc, size: input.size, chunks: () => createReadStream(this.path) };
  }

  async discard(): Promise<void> {
    this.input?.deflate.destroy();
    await this.written?.catch(() => undefined);
    await rm(this.path, { force: true });
  }

  private open(): DeflateInput {
    const input = new DeflateInput();
    // The pipeline destroys the deflater if the file fails, so a waiting write rejects.
    this.written = pipeline(input.deflate, createWriteStream(this.path, { flags: 'wx', mode: 0o600 }));
    this.written.catch(() => undefined); // observed by close() and discard()
    return input;
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
