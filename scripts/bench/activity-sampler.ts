import pg from 'pg';
import { cpuMsOf, procReadable } from './proc.js';

/**
 * Samples pg_stat_activity of one database while a phase runs and tallies what its backends are doing:
 *   running          executing a statement (on CPU or I/O)
 *   lock             waiting for a row or transaction lock held by another backend
 *   waitingOnClient  inside a transaction, waiting for the next statement from the client (round trip)
 *   idle             between transactions
 * and, when PostgreSQL runs on this machine and /proc is readable, the CPU time its backends used:
 * unlike throughput, CPU per transaction hardly depends on what else the machine is doing.
 */
export interface ActivityShares {
  samples: number;
  backendsMean: number;
  running: number;
  lock: number;
  waitingOnClient: number;
  idle: number;
  other: number;
  /** CPU milliseconds used by the database's backends during the sampling; null without /proc access. */
  backendCpuMs: number | null;
}

interface Row {
  pid: number;
  state: string | null;
  wait_event_type: string | null;
}

export interface ActivitySampler {
  stop(): Promise<ActivityShares>;
}

export async function startActivitySampler(serverUrl: string, database: string, everyMs = 50): Promise<ActivitySampler> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  const host = new URL(serverUrl).hostname;
  // Same machine: a loopback address or a Unix socket folder (postgres://user@%2Fvar%2Frun%2Fpostgresql/db).
  const local = procReadable && (['127.0.0.1', 'localhost', '::1', '[::1]', ''].includes(host) || host.startsWith('%2F'));
  const tally = { samples: 0, backends: 0, running: 0, lock: 0, waitingOnClient: 0, idle: 0, other: 0 };
  // CPU per backend: first and last reading (a backend that starts during the phase starts from 0).
  const cpu = new Map<number, { first: number; last: number }>();
  let first = true;
  let stopped = false;
  const sample = async () => {
    const { rows } = await client.query<Row>(
      `select pid, state, wait_event_type from pg_stat_activity
        where datname = $1 and pid <> pg_backend_pid() and backend_type = 'client backend'`,
      [database],
    );
    tally.samples += 1;
    tally.backends += rows.length;
    for (const row of rows) {
      if (row.state === 'idle') tally.idle += 1;
      else if (row.state === 'idle in transaction') tally.waitingOnClient += 1;
      else if (row.state === 'active' && row.wait_event_type === 'Lock') tally.lock += 1;
      else if (row.state === 'active') tally.running += 1;
      else tally.other += 1;
      const ms = local ? cpuMsOf(row.pid) : undefined;
      if (ms === undefined) continue;
      const seen = cpu.get(row.pid);
      if (seen) seen.last = ms;
      else cpu.set(row.pid, { first: first ? ms : 0, last: ms });
    }
    first = false;
  };
  await sample();
  const loop = (async () => {
    while (!stopped) {
      await new Promise((resolve) => setTimeout(resolve, everyMs));
      await sample();
    }
  })();
  return {
    async stop() {
      stopped = true;
      await loop;
      await client.end();
      const share = (n: number) => (tally.backends ? Math.round((n / tally.backends) * 1000) / 1000 : 0);
      const backendCpuMs = local && cpu.size > 0 ? [...cpu.values()].reduce((sum, { first: from, last }) => sum + (last - from), 0) : null;
      return {
        samples: tally.samples,
        backendsMean: tally.samples ? Math.round((tally.backends / tally.samples) * 10) / 10 : 0,
        running: share(tally.running),
        lock: share(tally.lock),
        waitingOnClient: share(tally.waitingOnClient),
        idle: share(tally.idle),
        other: share(tally.other),
        backendCpuMs,
      };
    },
  };
}
