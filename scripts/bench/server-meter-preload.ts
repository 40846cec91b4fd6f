/**
 * Preloaded into the product's process(es) by the bench (NODE_OPTIONS=--import <this file>), so cluster
 * workers load it too. It counts what the process asks of PostgreSQL, seen from node-postgres: round trips
 * (Client#query calls, BEGIN/COMMIT/SAVEPOINT included), the time from sending a query to its answer, and
 * the time waiting for a pooled connection; the garbage collector's pauses (each stops every request the
 * process holds, so they show in p99); and it answers the bench over a Unix socket of its own
 * (`$BENCH_METER_DIR/<pid>.sock`): GET /totals, POST /profile/start?kind=cpu|heap, POST /profile/stop?file=<path>
 * (a V8 CPU profile or sampling allocation profile of this process, written as JSON to that file).
 *
 * Self-contained (node: modules and pg only): Node loads it with its own type stripping, before any loader.
 * It does nothing in any process but the one running $BENCH_METER_ENTRY (the tsx launcher loads it too).
 */
import cluster from 'node:cluster';
import { unlinkSync, writeFileSync } from 'node:fs';
import http from 'node:http';
import { Session } from 'node:inspector/promises';
import { join, resolve } from 'node:path';
import { PerformanceObserver } from 'node:perf_hooks';
import pg from 'pg';
import type { ProfileKind } from './cpu-profile.js'; // erased: Node loads this file without a loader

/**
 * What the meter counts, summed over a process's life (the bench takes differences): round trips and their
 * time, waits for a pooled connection and their time, GC pauses, their time, and those of LONG_GC_PAUSE_MS or more.
 */
export const METER_KEYS = ['queries', 'queryMs', 'poolWaits', 'poolWaitMs', 'gcPauses', 'gcPauseMs', 'longGcPauses'] as const;
export type MeterTotals = Record<(typeof METER_KEYS)[number], number>;

export interface ServerTotals extends MeterTotals {
  pid: number;
  worker: boolean;
  rssBytes: number;
}

const totals = Object.fromEntries(METER_KEYS.map((key) => [key, 0])) as MeterTotals;
export const LONG_GC_PAUSE_MS = 5;

type Callback = (...args: unknown[]) => void;

/** Wraps a callback-or-promise API so that `done(ms)` runs when the call completes either way. */
function timed(original: (...args: unknown[]) => unknown, done: (ms: number) => void) {
  return function (this: unknown, ...args: unknown[]) {
    const started = performance.now();
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (...results: unknown[]) => {
        done(performance.now() - started);
        (last as Callback)(...results);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(
        () => done(performance.now() - started),
        () => done(performance.now() - started),
      );
    }
    return result;
  };
}

function installQueryMeter(): void {
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  client.query = timed(client.query, (ms) => {
    totals.queries += 1;
    totals.queryMs += ms;
  });
  const pool = pg.Pool.prototype as unknown as { connect: (...args: unknown[]) => unknown };
  pool.connect = timed(pool.connect, (ms) => {
    totals.poolWaits += 1;
    totals.poolWaitMs += ms;
  });
}

function installGcMeter(): void {
  new PerformanceObserver((list) => {
    for (const pause of list.getEntries()) {
      totals.gcPauses += 1;
      totals.gcPauseMs += pause.duration;
      if (pause.duration >= LONG_GC_PAUSE_MS) totals.longGcPauses += 1;
    }
  }).observe({ entryTypes: ['gc'] });
}

let profiler: { session: Session; kind: ProfileKind } | undefined;

/**
 * `cpu`: V8's sampling CPU profiler. `heap`: V8's sampling heap profiler with the objects the collector
 * has freed kept in the profile, so it tells what a call allocates, not what stays alive.
 */
async function startProfile(kind: ProfileKind): Promise<void> {
  const session = new Session();
  session.connect();
  if (kind === 'heap') {
    await session.post('HeapProfiler.enable');
    await session.post('HeapProfiler.startSampling', {
      samplingInterval: 16384,
      includeObjectsCollectedByMajorGC: true,
      includeObjectsCollectedByMinorGC: true,
    });
  } else {
    await session.post('Profiler.enable');
    await session.post('Profiler.setSamplingInterval', { interval: 500 });
    await session.post('Profiler.start');
  }
  profiler = { session, kind };
}

/** A worker started after the phase began has no profile to stop: it writes none. */
async function stopProfile(file: string): Promise<void> {
  if (!profiler) return;
  const { session, kind } = profiler;
  profiler = undefined;
  const { profile } = kind === 'heap' ? await session.post('HeapProfiler.stopSampling') : await session.post('Profiler.stop');
  session.disconnect();
  writeFileSync(file, JSON.stringify(profile));
}

async function answer(request: http.IncomingMessage): Promise<unknown> {
  const url = new URL(request.url ?? '/', 'http://meter');
  if (url.pathname === '/totals') {
    const current: ServerTotals = { pid: process.pid, worker: cluster.isWorker, ...totals, rssBytes: process.memoryUsage().rss };
    return current;
  }
  if (url.pathname === '/profile/start') return startProfile(url.searchParams.get('kind') === 'heap' ? 'heap' : 'cpu');
  if (url.pathname === '/profile/stop') return stopProfile(url.searchParams.get('file') ?? '');
  throw new Error(`unknown meter call ${url.pathname}`);
}

function listen(dir: string): void {
  const socket = join(dir, `${process.pid}.sock`);
  const server = http.createServer((request, response) => {
    answer(request).then(
      (body) => response.end(JSON.stringify(body ?? {})),
      (err: unknown) => {
        response.statusCode = 500;
        response.end(JSON.stringify({ error: String(err) }));
      },
    );
  });
  server.listen(socket);
  server.unref(); // never keeps the product alive
  process.on('exit', () => {
    try {
      unlinkSync(socket);
    } catch {
      // already gone
    }
  });
}

const dir = process.env.BENCH_METER_DIR;
const entry = process.env.BENCH_METER_ENTRY;
if (dir && entry && process.argv[1] && resolve(process.argv[1]) === resolve(entry)) {
  installQueryMeter();
  installGcMeter();
  listen(dir);
}
