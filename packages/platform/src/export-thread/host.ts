import { channel } from 'node:diagnostics_channel';
import { extname } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { Actor } from '../auth/actor.js';
import { AppError, type ErrorCode } from '../errors.js';
import type { UseCaseContext } from '../http/context.js';
import type { ExportJob, HostMessage, SerialisedError, StreamedFile, ThreadData, ThreadMessage } from './protocol.js';

export type { ExportJob, StreamedFile } from './protocol.js';
export { EXPORT_JOBS_BINDING, EXPORT_THREAD_APPLICATION_NAME } from './protocol.js';

/*
 * Large exports off the event loop: on PostgreSQL a service runs them in a worker thread of lowered
 * CPU priority (the export thread), which reads the records over its own connection, builds the file
 * and deflates it; the event loop only passes the bytes on to the reply. See docs/decisions.md
 * (Platform, export thread).
 */

/** Bytes the reply's stream holds before the thread is asked to wait (a few chunks). */
const READER_BUFFER_BYTES = 1 << 20;
/** An idle thread ends after this long; the next export starts one again (about a second of loading). */
const IDLE_MS = 5 * 60_000;

/** What a started export thread reports (diagnostics channel EXPORT_THREAD_CHANNEL, tests). */
export interface ExportThreadStart {
  /** node:worker_threads id of the thread (the main thread's is 0) */
  threadId: number;
  /** OS thread id (Linux), null where it cannot be known */
  tid: number | null;
  /** The priority the thread runs at, null when it could not be lowered */
  niceness: number | null;
}

/** Published on every job the export thread starts: `{ job, thread: ExportThreadStart }`. */
export const EXPORT_THREAD_CHANNEL = 'wms:export-thread:job';
const jobChannel = channel(EXPORT_THREAD_CHANNEL);

export interface ExportThreadOptions {
  /** The service's PostgreSQL URL: the thread opens one connection of its own. */
  databaseUrl: string;
  /** File URL of the module exporting the jobs as `exportJobs` (a sibling of the caller: siblingModule). */
  jobs: URL;
  /** CPU priority of the thread, 1 (a little lower) to 19 (lowest). */
  niceness: number;
  /** Ends an idle thread after this many ms (default 5 minutes). */
  idleMs?: number;
}

export interface ExportThread<Jobs extends Record<string, ExportJob<never>>> {
  /**
   * Runs a job on the thread with the caller's actor, clock and request URL. Resolves once the plan is
   * done (the file name is known), rejects with the job's error before that. The stream errors if the
   * job fails later; destroying it (the client went away) or `signal` stops the job.
   */
  run<Name extends keyof Jobs & string>(job: Name, ctx: UseCaseContext, input: Parameters<Jobs[Name]>[1], signal?: AbortSignal): Promise<StreamedFile>;
  /** Ends the thread and every running job (the service closes). */
  close(): Promise<void>;
}

/** A module next to `importMetaUrl`, with the caller's own extension (.ts under tsx, .js if ever built). */
export function siblingModule(importMetaUrl: string, baseName: string): URL {
  return new URL(`./${baseName}${extname(fileURLToPath(importMetaUrl))}`, importMetaUrl);
}

/** The loader tsx puts in execArgv (`tsx script.ts`, `node --import tsx`): a worker inherits it. */
const runsUnderTsx = () => process.execArgv.some((arg) => /(^|[/\\@])tsx($|[/\\])/.test(arg));

function deserialise(error: SerialisedError): Error {
  if (error.appError) return new AppError(error.code as ErrorCode, error.message, error.extras ?? {}, error.status);
  const rebuilt = new Error(error.message) as Error & { code?: string };
  rebuilt.name = error.name;
  if (error.stack) rebuilt.stack = error.stack;
  if (error.code) rebuilt.code = error.code;
  return rebuilt;
}

/** One job as the host sees it: waiting for its head, then streaming into its reader. */
interface HostJob {
  name: string;
  head: { resolve: (file: StreamedFile) => void; reject: (error: Error) => void } | null;
  stream: Readable | null;
  /** Chunks received while the reader was full: acknowledged when it reads again. */
  unacknowledged: number;
  done: boolean;
}

/**
 * The export thread of one service instance: started at the first job, reused by the next ones, ended
 * when idle for a while or when the service closes. It never keeps the process alive (unref).
 */
export function createExportThread<Jobs extends Record<string, ExportJob<never>>>(options: ExportThreadOptions): ExportThread<Jobs> {
  const idleMs = options.idleMs ?? IDLE_MS;
  let worker: Worker | null = null;
  let started: ExportThreadStart | null = null;
  let idleTimer: NodeJS.Timeout | null = null;
  let nextId = 1;
  const jobs = new Map<number, HostJob>();

  const send = (message: HostMessage) => worker?.postMessage(message);

  function finish(id: number): void {
    const job = jobs.get(id);
    if (!job) return;
    job.done = true;
    jobs.delete(id);
    if (jobs.size === 0 && worker) {
      idleTimer = setTimeout(() => void stopThread(), idleMs);
      idleTimer.unref();
    }
  }

  function fail(id: number, error: Error): void {
    const job = jobs.get(id);
    if (!job) return;
    finish(id);
    if (job.head) job.head.reject(error);
    else job.stream?.destroy(error);
  }

  function readerFor(id: number, job: HostJob): Readable {
    return new Readable({
      highWaterMark: READER_BUFFER_BYTES,
      read() {
        for (; job.unacknowledged > 0; job.unacknowledged -= 1) send({ type: 'ack', id });
      },
      destroy(error, callback) {
        if (!job.done) {
          send({ type: 'abort', id });
          finish(id);
        }
        callback(error);
      },
    });
  }

  function onMessage(message: ThreadMessage): void {
    if (message.type === 'started') {
      started = { threadId: worker?.threadId ?? -1, tid: message.tid, niceness: message.niceness };
      return;
    }
    const job = jobs.get(message.id);
    if (!job) return; // aborted meanwhile
    switch (message.type) {
      case 'head': {
        const stream = readerFor(message.id, job);
        job.stream = stream;
        const head = job.head!;
        job.head = null;
        if (started) jobChannel.publish({ job: job.name, thread: started });
        head.resolve({ fileName: message.fileName, stream });
        break;
      }
      case 'chunk':
        if (job.stream!.push(Buffer.from(message.bytes))) send({ type: 'ack', id: message.id });
        else job.unacknowledged += 1;
        break;
      case 'end':
        finish(message.id);
        job.stream!.push(null);
        break;
      case 'error':
        fail(message.id, deserialise(message.error));
        break;
    }
  }

  function startThread(): Worker {
    const data: ThreadData = {
      main: siblingModule(import.meta.url, 'thread').href,
      jobs: options.jobs.href,
      databaseUrl: options.databaseUrl,
      niceness: options.niceness,
      registerTsx: !runsUnderTsx(),
    };
    const thread = new Worker(new URL('./bootstrap.mjs', import.meta.url), { workerData: data, name: 'export-thread' });
    thread.unref();
    thread.on('message', onMessage);
    const lost = (error: Error) => {
      if (worker !== thread) return;
      worker = null;
      started = null;
      for (const id of [...jobs.keys()]) fail(id, error);
    };
    thread.on('error', lost);
    thread.on('exit', (code) => lost(new Error(`the export thread stopped (exit code ${code})`)));
    return thread;
  }

  async function stopThread(): Promise<void> {
    const thread = worker;
    if (idleTimer) clearTimeout(idleTimer);
    idleTimer = null;
    if (!thread) return;
    worker = null;
    started = null;
    for (const id of [...jobs.keys()]) fail(id, new Error('the export thread was stopped'));
    await thread.terminate();
  }

  return {
    run(jobName, ctx, input, signal) {
      if (signal?.aborted) return Promise.reject(signal.reason instanceof Error ? signal.reason : new Error('the export was aborted'));
      if (idleTimer) clearTimeout(idleTimer);
      idleTimer = null;
      worker ??= startThread();
      const id = nextId++;
      const { id: userId, username, name, role, company, grants } = ctx.actor;
      const actor: Actor = { id: userId, username, name, role, company, grants: new Set(grants) };
      const file = new Promise<StreamedFile>((resolve, reject) => {
        jobs.set(id, { name: jobName, head: { resolve, reject }, stream: null, unacknowledged: 0, done: false });
      });
      try {
        send({ type: 'run', id, job: jobName, input, actor, now: ctx.now, requestUrl: ctx.requestUrl });
      } catch (error) {
        fail(id, error as Error); // an input that cannot be cloned
        return file;
      }
      if (signal) {
        const onAbort = () => {
          const job = jobs.get(id);
          if (!job) return;
          send({ type: 'abort', id });
          fail(id, signal.reason instanceof Error ? signal.reason : new Error('the export was aborted'));
        };
        signal.addEventListener('abort', onAbort, { once: true });
        void file.then(
          (running) => running.stream.once('close', () => signal.removeEventListener('abort', onAbort)),
          () => signal.removeEventListener('abort', onAbort),
        );
      }
      return file;
    },
    close: stopThread,
  };
}
