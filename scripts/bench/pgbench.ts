import { execFile } from 'node:child_process';
import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { startActivitySampler } from './activity-sampler.js';
import { RAW_BENCH_DIR } from './settings.js';

const run = promisify(execFile);

export interface RawResult {
  script: string;
  /** The pgbench arguments after the script, as the README gives them. */
  args: string[];
  tps: number;
  latencyAvgMs: number | null;
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

/** One pgbench run exactly as ../shared/bench/README.md gives it; the database goes last. */
export async function pgbench(database: { url: string; name: string }, script: string, args: string[]): Promise<RawResult> {
  const binary = await findTool('pgbench');
  const sampler = await startActivitySampler(database.url, database.name);
  const outcome = await run(binary, ['-n', '-f', join(RAW_BENCH_DIR, script), ...args, database.url], { maxBuffer: 16 * 1024 * 1024 }).then(
    (done) => ({ stdout: done.stdout, error: undefined }),
    (error: unknown) => ({ stdout: '', error }),
  );
  const activity = await sampler.stop();
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
    transactions,
    failed: number(/^number of failed transactions: (\d+)/m),
    backendCpuMsPerTx:
      activity.backendCpuMs !== null && transactions ? Math.round((activity.backendCpuMs / transactions) * 1000) / 1000 : null,
  };
}
