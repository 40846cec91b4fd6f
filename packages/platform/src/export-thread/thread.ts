import { parentPort, workerData } from 'node:worker_threads';
import { drizzle } from 'drizzle-orm/node-postgres';
import pg from 'pg';
import { pingPool, type Database, type Db } from '../db/database.js';
import { AppError } from '../errors.js';
import { createUseCaseContext } from '../http/context.js';
import { deflateOnThisThread } from '../xlsx/zip-stream.js';
import { EXPORT_JOBS_BINDING, EXPORT_THREAD_APPLICATION_NAME, type ExportJob, type HostMessage, type SerialisedError, type ThreadData, type ThreadMessage } from './protocol.js';

/*
 * The export thread (loaded by bootstrap.mjs at a lowered CPU priority): runs the service's own export
 * functions over its own database connection and hands the file's bytes to the host chunk by chunk.
 * Everything CPU-bound happens here: parsing the rows, building the views, writing the XML, and
 * deflating it (on this thread, not in libuv's pool, whose threads keep the normal priority).
 */

/** Bytes collected before they cross to the host (the writer hands over pieces of a few KB). */
const CHUNK_BYTES = 256 * 1024;
/** Chunks sent and not yet taken by the host's reader; the job waits at this many (back-pressure). */
const CHUNKS_IN_FLIGHT = 4;

const data = workerData as ThreadData;
const port = parentPort!;
const post = (message: ThreadMessage, transfer: ArrayBuffer[] = []) => port.postMessage(message, transfer);

deflateOnThisThread();

/** The service's database, read only: one connection, opened at the first job and kept for the next. */
function openReadOnlyDatabase(url: string): Database {
  const pool = new pg.Pool({ connectionString: url, max: 1, application_name: EXPORT_THREAD_APPLICATION_NAME });
  pool.on('error', () => undefined); // an idle connection that dies is replaced at the next query
  const db = drizzle({ client: pool }) as unknown as Db;
  const refuse = (): never => {
    throw new Error('the export thread only reads');
  };
  return {
    kind: 'postgres',
    db,
    transaction: refuse,
    read: (fn) => fn(db),
    ping: () => pingPool(pool),
    close: () => pool.end(),
  };
}

let database: Database | null = null;
let jobs: Promise<Record<string, ExportJob<unknown>>> | null = null;

function jobsModule(): Promise<Record<string, ExportJob<unknown>>> {
  return (jobs ??= import(data.jobs).then((module: Record<string, unknown>) => {
    const exported = module[EXPORT_JOBS_BINDING];
    if (!exported || typeof exported !== 'object') throw new Error(`${data.jobs} exports no ${EXPORT_JOBS_BINDING}`);
    return exported as Record<string, ExportJob<unknown>>;
  }));
}

function serialise(error: unknown): SerialisedError {
  if (error instanceof AppError) {
    return { name: error.name, message: error.message, code: error.code, status: error.status, extras: error.extras, appError: true };
  }
  const failure = error instanceof Error ? error : new Error(String(error));
  const code = (failure as { code?: unknown }).code;
  return { name: failure.name, message: failure.message, stack: failure.stack, code: typeof code === 'string' ? code : undefined, appError: false };
}

/** One running job: its stream once the plan is done, and the credits of its chunks. */
class Run {
  aborted = false;
  stream: StreamedFileStream | null = null;
  private credits = CHUNKS_IN_FLIGHT;
  private waiting: (() => void) | null = null;

  constructor(readonly id: number) {}

  ack(): void {
    this.credits += 1;
    this.wake();
  }

  abort(): void {
    this.aborted = true;
    this.stream?.destroy();
    this.wake();
  }

  private wake(): void {
    const waiting = this.waiting;
    this.waiting = null;
    waiting?.();
  }

  /** Sends a chunk, first waiting while CHUNKS_IN_FLIGHT are unread; false once aborted. */
  async send(bytes: Uint8Array): Promise<boolean> {
    while (this.credits === 0 && !this.aborted) await new Promise<void>((resolve) => (this.waiting = resolve));
    if (this.aborted) return false;
    this.credits -= 1;
    const buffer = bytes.buffer as ArrayBuffer;
    post({ type: 'chunk', id: this.id, bytes: buffer }, [buffer]);
    return true;
  }
}

type StreamedFileStream = Awaited<ReturnType<ExportJob<unknown>>>['stream'];

const runs = new Map<number, Run>();

/** Collects the stream's pieces into CHUNK_BYTES buffers of their own (so they can be transferred). */
async function pump(run: Run, stream: StreamedFileStream): Promise<void> {
  let chunk = new Uint8Array(CHUNK_BYTES);
  let used = 0;
  for await (const piece of stream as AsyncIterable<Uint8Array>) {
    let offset = 0;
    while (offset < piece.length) {
      const n = Math.min(piece.length - offset, CHUNK_BYTES - used);
      chunk.set(piece.subarray(offset, offset + n), used);
      used += n;
      offset += n;
      if (used === CHUNK_BYTES) {
        if (!(await run.send(chunk))) return;
        chunk = new Uint8Array(CHUNK_BYTES);
        used = 0;
      }
    }
  }
  if (used > 0 && !(await run.send(chunk.slice(0, used)))) return;
  post({ type: 'end', id: run.id });
}

async function runJob(message: Extract<HostMessage, { type: 'run' }>): Promise<void> {
  const run = new Run(message.id);
  runs.set(message.id, run);
  try {
    const job = (await jobsModule())[message.job];
    if (!job) throw new Error(`unknown export job ${message.job}`);
    database ??= openReadOnlyDatabase(data.databaseUrl);
    const ctx = createUseCaseContext(database, message.actor, message.requestUrl, message.now);
    const file = await job(ctx, message.input);
    run.stream = file.stream;
    if (run.aborted) {
      file.stream.destroy();
      return;
    }
    post({ type: 'head', id: run.id, fileName: file.fileName });
    await pump(run, file.stream);
  } catch (error) {
    if (!run.aborted) post({ type: 'error', id: run.id, error: serialise(error) });
  } finally {
    runs.delete(message.id);
  }
}

port.on('message', (message: HostMessage) => {
  switch (message.type) {
    case 'run':
      void runJob(message);
      break;
    case 'ack':
      runs.get(message.id)?.ack();
      break;
    case 'abort':
      runs.get(message.id)?.abort();
      break;
  }
});
