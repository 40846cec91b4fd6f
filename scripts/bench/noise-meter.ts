import { loadavg } from 'node:os';
import pg from 'pg';
import { allProcesses, machineBusyTicks, procReadable, statOf, TICKS_PER_SECOND, treeOf, uptimeTicks, type ProcStat } from './proc.js';

/**
 * "Other processes' CPU": the busy ticks of the whole machine (/proc/stat) minus those of everything the
 * bench runs — its own process tree (the load generator, pgbench, psql, the product and its workers) and
 * the PostgreSQL backends of the bench's databases (those it names, and every scratch database `bench_…`).
 * Kept as running totals, so any window (a phase, a quiet check) is the difference of two marks. Not counted as the bench's: PostgreSQL's shared background
 * processes (WAL writer, checkpointer; ≈ 0.1 % of a core under reserve.sql). Interrupt time is counted on
 * neither side (machineBusyTicks).
 */
export interface NoiseMark {
  atMs: number;
  busyTicks: number;
  oursTicks: number;
}

export interface NoiseWindow {
  seconds: number;
  /** Others' CPU as a share of one core (0.10 = 10 % of one core on average); null without /proc. */
  othersCore: number | null;
  /** The whole machine's busy CPU as a share of one core (2 = both cores of two). */
  busyCore: number | null;
  /** 1-minute load average at the end of the window. */
  load1: number;
}

export interface NoiseMeter {
  /** Counts the backends of this database as the bench's from now on. */
  watchDatabase(name: string): void;
  mark(): NoiseMark;
  since(mark: NoiseMark): NoiseWindow;
  /** Waits until one window of `windowMs` had others' CPU at most `limitCore`, or `maxSeconds` passed. */
  waitForQuiet(limitCore: number, maxSeconds: number, windowMs?: number): Promise<NoiseWindow & { quiet: boolean; waitedSeconds: number }>;
  close(): Promise<void>;
}

const TICK_MS = 500;
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export async function startNoiseMeter(serverUrl: string): Promise<NoiseMeter> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  const databases = new Set<string>();
  const startUptime = procReadable ? uptimeTicks() : 0;
  // The bench tree's processes that existed at the start are counted from their reading then.
  const treeBaseline = procReadable ? sumTree(treeOf(process.pid)) : 0;
  // Backends: the first and the last reading of each one ever seen (their time stays counted after they end).
  const backends = new Map<number, { first: number; last: number }>();
  let backendPids: number[] = [];

  const refreshBackends = async () => {
    const { rows } = await client.query<{ pid: number }>(`select pid from pg_stat_activity
        where datname = any($1::text[]) or datname like 'bench\\_%' or pid = pg_backend_pid()`, [[...databases]]);
    backendPids = rows.map((row) => row.pid);
  };
  const readBackends = () => {
    for (const pid of backendPids) {
      const stat = statOf(pid);
      if (!stat) continue;
      const seen = backends.get(pid);
      if (seen) seen.last = stat.ownTicks;
      else backends.set(pid, { first: stat.startTicks >= startUptime ? 0 : stat.ownTicks, last: stat.ownTicks });
    }
  };
  const mark = (): NoiseMark => {
    if (!procReadable) return { atMs: performance.now(), busyTicks: 0, oursTicks: 0 };
    readBackends();
    const tree = sumTree(treeOf(process.pid, allProcesses())) - treeBaseline;
    const backendTicks = [...backends.values()].reduce((sum, { first, last }) => sum + last - first, 0);
    return { atMs: performance.now(), busyTicks: machineBusyTicks() ?? 0, oursTicks: tree + backendTicks };
  };

  let stopped = false;
  const ticker = (async () => {
    while (!stopped) {
      await refreshBackends().catch(() => undefined);
      mark();
      await sleep(TICK_MS);
    }
  })();

  const since = (from: NoiseMark): NoiseWindow => {
    const to = mark();
    const seconds = (to.atMs - from.atMs) / 1000;
    const share = (ticks: number) => (seconds > 0 ? Math.round((ticks / TICKS_PER_SECOND / seconds) * 1000) / 1000 : 0);
    return {
      seconds: Math.round(seconds * 10) / 10,
      othersCore: procReadable ? Math.max(0, share(to.busyTicks - from.busyTicks - (to.oursTicks - from.oursTicks))) : null,
      busyCore: procReadable ? share(to.busyTicks - from.busyTicks) : null,
      load1: Math.round(loadavg()[0]! * 100) / 100,
    };
  };

  return {
    watchDatabase(name) {
      databases.add(name);
      void refreshBackends().catch(() => undefined);
    },
    mark,
    since,
    async waitForQuiet(limitCore, maxSeconds, windowMs = 1000) {
      const started = performance.now();
      for (;;) {
        await refreshBackends().catch(() => undefined);
        const from = mark();
        await sleep(windowMs);
        const window = since(from);
        const waitedSeconds = Math.round((performance.now() - started) / 100) / 10;
        const quiet = window.othersCore === null || window.othersCore <= limitCore;
        if (quiet || waitedSeconds >= maxSeconds) return { ...window, quiet, waitedSeconds };
      }
    },
    async close() {
      stopped = true;
      await ticker;
      await client.end();
    },
  };
}

function sumTree(tree: ProcStat[]): number {
  return tree.reduce((sum, stat) => sum + stat.ownTicks + stat.childTicks, 0);
}
