import type { Readable } from 'node:stream';
import type { Actor } from '../auth/actor.js';
import type { UseCaseContext } from '../http/context.js';

/** What an export produces: the file name (known before the first byte) and the bytes as they are written. */
export interface StreamedFile {
  fileName: string;
  stream: Readable;
}

/**
 * A job of the export thread: the same function the service runs in process, given a use-case context
 * over the thread's own database connection. Its input crosses threads by structured clone.
 */
export type ExportJob<Input> = (ctx: UseCaseContext, input: Input) => Promise<StreamedFile>;

/** The module the thread loads its jobs from exports them by name under this binding. */
export const EXPORT_JOBS_BINDING = 'exportJobs';

/** How the thread's database connection shows in pg_stat_activity. */
export const EXPORT_THREAD_APPLICATION_NAME = 'wms-export-thread';

/** Host → thread. */
export type HostMessage =
  | {
      type: 'run';
      id: number;
      job: string;
      input: unknown;
      actor: Actor;
      now: Date;
      requestUrl: string;
    }
  /** One chunk was taken by the reader: the thread may send one more. */
  | { type: 'ack'; id: number }
  /** The reader went away: stop the job (its workbook writer aborts as it does in process). */
  | { type: 'abort'; id: number };

/** An error as it crosses threads; an AppError keeps its code, status and extra fields. */
export interface SerialisedError {
  name: string;
  message: string;
  stack?: string;
  /** AppError code, or a database SQLSTATE (the error handler translates those) */
  code?: string;
  status?: number;
  extras?: Record<string, unknown>;
  appError: boolean;
}

/** Thread → host. */
export type ThreadMessage =
  /** Once, when the thread has started: its OS thread id and the priority it runs at (null: not lowered). */
  | { type: 'started'; tid: number | null; niceness: number | null }
  /** The plan is done: headers can go out. */
  | { type: 'head'; id: number; fileName: string }
  /** The next bytes of the file (a transferred buffer). */
  | { type: 'chunk'; id: number; bytes: ArrayBuffer }
  | { type: 'end'; id: number }
  | { type: 'error'; id: number; error: SerialisedError };

/** The workerData of the thread's bootstrap. */
export interface ThreadData {
  /** file URL of the thread's main module (TypeScript, loaded through tsx) */
  main: string;
  /** file URL of the module exporting EXPORT_JOBS_BINDING */
  jobs: string;
  databaseUrl: string;
  /** The nice value the thread asks for (0–19); lowering needs no privilege. */
  niceness: number;
  /** Whether this thread must register tsx itself (the host did not run under tsx's loader, e.g. under vitest). */
  registerTsx: boolean;
}
