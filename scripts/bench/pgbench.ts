import { execFile } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startActivitySampler } from './activity-sampler.js';
import { RAW_BENCH_DIR } from './settings.js';
import { percentile, round } from './stats.js';

const run = promisify(execFile);

export interface RawResult {
  script: string;
  /** The pgbench arguments after the script, as the README gives them. */
  args: string[];
  tps: number;
  latencyAvgMs: number | null;
  /**
   * The raw transaction's own p99 at pgbench's clients (closed loop, as the README runs it), from a sampled
   * per-transaction log: what the same PostgreSQL answers in on the same machine, which tells whether a
   * product p99 target is within reach there at all. Null when the log holds nothing.
   */
  latencyP99Ms: number | null;
  transactions: number | null;
  failed: number | null;
  /** CPU milliseconds of PostgreSQL backends per transaction (see activity-sampler); null without /proc. */
  backendCpuMsPerTx: number | null;
}

/** A PostgreSQL client tool from PATH, else from the newest /usr/lib/postgresql/<version>/bin. */
export async function findTool(name: 'pgbench' | 'psql'): Promise<string> {
  try {
    await run(name, ['--version']);
    return name;
  } catch {
    const root = '/usr/lib/postgresql';
    const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
    for (const version of versions) {
      const candidate = join(root, version, 'bin', name);
      if (existsSync(candidate)) return candidate;
    }
    throw new Error(`${name} not found on PATH nor in ${root}/*/bin`);
  }
}

/** psql -f setup.sql on the scratch database (stock of 10,000 rows, empty ledger). */
export async function setupRawTables(databaseUrl: string): Promise<void> {
  const psql = await findTool('psql');
  await run(psql, ['-X', '-q', '-v', 'ON_ERROR_STOP=1', '-d', databaseUrl, '-f', join(RAW_BENCH_DIR, 'setup.sql')]);
}

/**
 * The share of transactions pgbench logs: a few thousand latencies per run, a few hundred buffered lines a
 * second for it to write. Alternated with and without the log (10 s runs, 2026-11-27), reserve.sql's tps did
 * not move at a tenth; select.sql lost 0.5–6 % at a tenth and nothing at a hundredth, which it gets.
 */
const logSamplingRate = (script: string) => (script === 'select.sql' ? '0.01' : '0.1');

/**
 * One pgbench run as ../shared/bench/README.md gives it (the database goes last), plus a sampled log of
 * the transactions' latencies.
 */
export async function pgbench(database: { url: string; name: string }, script: string, args: string[]): Promise<RawResult> {
  const binary = await findTool('pgbench');
  const logDir = mkdtempSync(join(tmpdir(), 'bench-pgbench-'));
  const logging = ['-l', `--sampling-rate=${logSamplingRate(script)}`, `--log-prefix=${join(logDir, 'tx')}`];
  const sampler = await startActivitySampler(database.url, database.name);
  const outcome = await run(binary, ['-n', '-f', join(RAW_BENCH_DIR, script), ...args, ...logging, database.url], {
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    (done) => ({ stdout: done.stdout, error: undefined }),
    (error: unknown) => ({ stdout: '', error }),
  );
  const activity = await sampler.stop();
  const latencies = readLatencies(logDir);
  rmSync(logDir, { recursive: true, force: true });
  if (outcome.error) throw outcome.error;
  const { stdout } = outcome;
  const number = (pattern: RegExp) => {
    const match = pattern.exec(stdout);
    return match ? Number(match[1]) : null;
  };
  const tps = number(/^tps = ([\d.]+)/m);
  if (tps === null) throw new Error(`pgbench printed no tps:\n${stdout}`);
  const transactions = number(/^number of transactions actually processed: (\d+)/m);
  return {
    script,
    args,
    tps,
    latencyAvgMs: number(/^latency average = ([\d.]+) ms/m),
    latencyP99Ms: latencies.length ? round(percentile(latencies, 99), 2) : null,
    transactions,
    failed: number(/^number of failed transactions: (\d+)/m),
    backendCpuMsPerTx:
      activity.backendCpuMs !== null && transactions ? round(activity.backendCpuMs / transactions, 3) : null,
  };
}

/**
 * The latencies (ms, sorted) of pgbench's per-transaction logs in dir, one file per thread: the third
 * field of a line is the transaction's time in microseconds.
 */
function readLatencies(dir: string): number[] {
  const latencies: number[] = [];
  for (const file of readdirSync(dir)) {
    for (const line of readFileSync(join(dir, file), 'utf8').split('\n')) {
      const micros = Number(line.split(' ')[2]); // NaN for the empty last line
      if (Number.isFinite(micros)) latencies.push(micros / 1000);
    }
  }
  return latencies.sort((a, b) => a - b);
}
