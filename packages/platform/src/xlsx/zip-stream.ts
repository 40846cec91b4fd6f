import { once } from 'node:events';
import type { Writable } from 'node:stream';
import { constants, crc32, createDeflateRaw, type DeflateRaw, type ZlibOptions } from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';

/*
 * A zip written as it goes, one entry after the other, into a Node stream. fflate lays out the
 * container (local headers with data descriptors, central directory); Node's zlib deflates, in its
 * thread pool, so compressing a large export costs the event loop (and the requests served beside
 * it) almost nothing. Back-pressure runs end to end: a write waits while the deflater or the output
 * is full, so memory holds a few MB whatever the size of the file. No ZIP64: every entry stays
 * under 4 GB (a 100,000-row sheet is about 100 MB of XML).
 */

/** Fast deflate: spreadsheet XML is repetitive, level 1 already shrinks it about tenfold. */
const DEFLATE_LEVEL = constants.Z_BEST_SPEED;
/**
 * XML a deflater takes before a write waits for it: more than a batch of rows, so a large export
 * gives the event loop away where its row source does (between batches) rather than per chunk; each
 * extra wait costs a full turn of a busy event loop. Memory stays a few MB per entry.
 */
const DEFLATE_INPUT_BYTES = 4 << 20;

/** A raw deflater for zip entries; zlib streams take the stream options too (their types omit them). */
export function entryDeflater(): DeflateRaw {
  const options: ZlibOptions & { writableHighWaterMark: number } = { level: DEFLATE_LEVEL, writableHighWaterMark: DEFLATE_INPUT_BYTES };
  return createDeflateRaw(options);
}

const EMPTY = new Uint8Array(0);

/** An entry deflated elsewhere beforehand (raw deflate of `size` bytes with this CRC-32). */
export interface DeflatedPart {
  crc: number;
  size: number;
  chunks(): AsyncIterable<Uint8Array>;
}

/** Resolves once `output` drained; rejects if it fails or closes first (the client went away). */
function drained(output: Writable): Promise<void> {
  return new Promise((resolve, reject) => {
    if (output.destroyed) {
      reject(new Error('the output closed before the zip was written'));
      return;
    }
    const done = (error?: Error) => {
      output.off('drain', onDrain).off('error', onError).off('close', onClose);
      if (error) reject(error);
      else resolve();
    };
    const onDrain = () => done();
    const onError = (error: Error) => done(error);
    const onClose = () => done(new Error('the output closed before the zip was written'));
    output.on('drain', onDrain).on('error', onError).on('close', onClose);
  });
}

export class ZipStream {
  private readonly zip: Zip;
  private failure: Error | null = null;
  /** Set while the output is full: writers wait on it. */
  private outputFull: Promise<void> | null = null;
  private finished: Promise<void>;
  private current: ZipEntry | null = null;

  constructor(private readonly output: Writable) {
    let finish!: () => void;
    let fail!: (error: Error) => void;
    this.finished = new Promise<void>((resolve, reject) => ((finish = resolve), (fail = reject)));
    this.finished.catch(() => undefined); // observed by end(); a failure also surfaces in the next write
    this.zip = new Zip((error, chunk, final) => {
      if (error) {
        this.failure = error;
        fail(error);
        return;
      }
      if (chunk.length > 0 && !this.output.write(chunk) && !this.outputFull) {
        this.outputFull = drained(this.output).finally(() => (this.outputFull = null));
        this.outputFull.catch((failure: Error) => ((this.failure ??= failure), fail(failure)));
      }
      if (final) finish();
    });
  }

  /** Starts the next entry; the previous one must have ended. */
  entry(name: string): ZipEntry {
    this.current = new ZipEntry(this.zip, name, () => this.ready());
    return this.current;
  }

  /** Adds an entry deflated beforehand, copying its bytes as they are read. */
  async copy(name: string, part: DeflatedPart): Promise<void> {
    const file: ZipInputFile = { filename: name, size: part.size, crc: part.crc, compression: 8 };
    this.current = null;
    this.zip.add(file);
    for await (const chunk of part.chunks()) {
      file.ondata!(null, chunk as Uint8Array<ArrayBuffer>, false);
      await this.ready();
    }
    file.ondata!(null, EMPTY, true);
    await this.ready();
  }

  /** Waits while the output is full; throws once anything failed. */
  async ready(): Promise<void> {
    if (this.outputFull) await this.outputFull;
    if (this.failure) throw this.failure;
  }

  /** Writes the central directory and waits until every byte was handed to the output. */
  async end(): Promise<void> {
    this.zip.end();
    await this.finished;
    await this.ready();
  }

  /** Stops after a failure elsewhere; the output is the caller's to destroy. */
  abort(): void {
    this.current?.destroy();
    this.zip.terminate();
  }
}

/** One file of the zip: text in, deflated by zlib, CRC and size counted for the data descriptor. */
export class ZipEntry {
  private readonly file: ZipInputFile;
  private readonly deflate: DeflateRaw;
  private readonly ended: Promise<void>;
  private crc = 0;
  private size = 0;

  constructor(
    zip: Zip,
    name: string,
    private readonly outputReady: () => Promise<void>,
  ) {
    this.file = { filename: name, size: 0, crc: 0, compression: 8 };
    zip.add(this.file);
    this.deflate = entryDeflater();
    this.deflate.on('data', (chunk: Uint8Array<ArrayBuffer>) => this.file.ondata!(null, chunk, false));
    this.ended = new Promise((resolve, reject) => {
      this.deflate.on('error', reject);
      this.deflate.on('end', () => {
        // fflate writes these into the data descriptor and the central directory.
        this.file.size = this.size;
        this.file.crc = this.crc;
        this.file.ondata!(null, EMPTY, true);
        resolve();
      });
    });
    this.ended.catch(() => undefined); // observed by close()
  }

  async write(text: string): Promise<void> {
    const bytes = Buffer.from(text, 'utf8');
    this.crc = crc32(bytes, this.crc);
    this.size += bytes.length;
    if (!this.deflate.write(bytes)) await once(this.deflate, 'drain'); // rejects if the deflater fails
    await this.outputReady();
  }

  async close(): Promise<void> {
    this.deflate.end();
    await this.ended;
    await this.outputReady();
  }

  /** Frees the deflater of an entry that will not be finished. */
  destroy(): void {
    this.deflate.destroy();
  }
}
