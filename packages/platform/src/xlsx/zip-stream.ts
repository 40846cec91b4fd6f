import { once } from 'node:events';
import { Transform, type TransformCallback, type Writable } from 'node:stream';
import { constants, crc32, createDeflateRaw, deflateRawSync, type ZlibOptions } from 'node:zlib';
import { Zip, type ZipInputFile } from 'fflate';

/*
 * A zip written as it goes, one entry after the other, into a Node stream. fflate lays out the
 * container (local headers with data descriptors, central directory); Node's zlib deflates, in its
 * thread pool, so compressing a large export costs the event loop (and the requests served beside
 * it) almost nothing; a thread whose priority was lowered deflates on itself instead
 * (deflateOnThisThread). Back-pressure runs end to end: a write waits while the deflater or the output
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

let deflateInline = false;

/**
 * From now on this thread deflates its zip entries itself, synchronously, instead of in libuv's thread
 * pool: for a worker thread whose CPU priority was lowered (the pool's threads keep the normal one, so
 * deflating there would compete with the event loop at full priority). Per thread: a worker's modules
 * are its own.
 */
export function deflateOnThisThread(): void {
  deflateInline = true;
}

/** An empty final block (what zlib writes to finish a raw stream): ends a stream of sync-flushed pieces. */
const FINAL_BLOCK = deflateRawSync(Buffer.alloc(0), { level: DEFLATE_LEVEL });

/**
 * Raw deflate on the calling thread: every chunk (CHUNK_BYTES of XML) is deflated alone and ends with a
 * sync flush (a byte-aligned, non-final empty block), so the pieces join into one valid raw deflate
 * stream, closed by FINAL_BLOCK. A piece cannot refer back into the one before it, which costs a
 * fraction of a percent of size at these chunk sizes.
 */
class InlineDeflateRaw extends Transform {
  constructor() {
    super({ writableHighWaterMark: DEFLATE_INPUT_BYTES });
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, done: TransformCallback): void {
    try {
      done(null, deflateRawSync(chunk, { level: DEFLATE_LEVEL, finishFlush: constants.Z_SYNC_FLUSH }));
    } catch (error) {
      done(error as Error);
    }
  }

  override _flush(done: TransformCallback): void {
    done(null, FINAL_BLOCK);
  }
}

/** A raw deflater for zip entries; zlib streams take the stream options too (their types omit them). */
function entryDeflater(): Transform {
  if (deflateInline) return new InlineDeflateRaw();
  const options: ZlibOptions & { writableHighWaterMark: number } = { level: DEFLATE_LEVEL, writableHighWaterMark: DEFLATE_INPUT_BYTES };
  return createDeflateRaw(options);
}

const EMPTY = new Uint8Array(0);

/** Bytes of UTF-8 collected before they go to the deflater. */
const CHUNK_BYTES = 256 * 1024;

/**
 * Text in, raw deflate out, with the CRC-32 and size a zip entry needs. The text is encoded straight
 * into fixed-size chunks as it comes (a row at a time), never joined into large strings first:
 * flattening and encoding those cost more than the deflating. A write waits while the deflater is full.
 */
export class DeflateInput {
  readonly deflate = entryDeflater();
  crc = 0;
  size = 0;
  private chunk = Buffer.allocUnsafe(CHUNK_BYTES);
  private used = 0;

  /** Adds text; answers a promise only when a full chunk was handed on (wait for it: back-pressure). */
  write(text: string): Promise<void> | undefined {
    const worstCase = text.length * 3; // UTF-8 bytes per UTF-16 unit, at most
    if (worstCase <= this.chunk.length - this.used) {
      this.used += this.chunk.write(text, this.used, 'utf8');
      return undefined;
    }
    return this.handOn(text, worstCase);
  }

  private async handOn(text: string, worstCase: number): Promise<void> {
    await this.push(this.take());
    if (worstCase > this.chunk.length) await this.push(Buffer.from(text, 'utf8'));
    else this.used = this.chunk.write(text, 0, 'utf8');
  }

  /** Hands on what is left and ends the deflater. */
  async end(): Promise<void> {
    await this.push(this.take());
    this.deflate.end();
  }

  private take(): Buffer {
    const full = this.chunk.subarray(0, this.used);
    this.chunk = Buffer.allocUnsafe(CHUNK_BYTES); // the deflater keeps the old one until it is done with it
    this.used = 0;
    return full;
  }

  private async push(bytes: Buffer): Promise<void> {
    if (bytes.length === 0) return;
    this.crc = crc32(bytes, this.crc);
    this.size += bytes.length;
    if (!this.deflate.write(bytes)) await once(this.deflate, 'drain'); // rejects if the deflater fails
  }
}

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

/** One file of the zip: text in, deflated by zlib (DeflateInput), streamed into the zip as it comes. */
export class ZipEntry {
  private readonly file: ZipInputFile;
  private readonly input = new DeflateInput();
  private readonly ended: Promise<void>;

  constructor(
    zip: Zip,
    name: string,
    private readonly outputReady: () => Promise<void>,
  ) {
    this.file = { filename: name, size: 0, crc: 0, compression: 8 };
    zip.add(this.file);
    const { deflate } = this.input;
    deflate.on('data', (chunk: Uint8Array<ArrayBuffer>) => this.file.ondata!(null, chunk, false));
    this.ended = new Promise((resolve, reject) => {
      deflate.on('error', reject);
      deflate.on('end', () => {
        // fflate writes these into the data descriptor and the central directory.
        this.file.size = this.input.size;
        this.file.crc = this.input.crc;
        this.file.ondata!(null, EMPTY, true);
        resolve();
      });
    });
    this.ended.catch(() => undefined); // observed by close()
  }

  /** Adds text; answers a promise only when the caller must wait (the deflater or the output is full). */
  write(text: string): Promise<void> | undefined {
    return this.input.write(text)?.then(this.outputReady);
  }

  async close(): Promise<void> {
    await this.input.end();
    await this.ended;
    await this.outputReady();
  }

  /** Frees the deflater of an entry that will not be finished. */
  destroy(): void {
    this.input.deflate.destroy();
  }
}
