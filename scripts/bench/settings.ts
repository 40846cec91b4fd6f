import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The raw baselines live next to the project, shared with the spec (contract §1). */
export const RAW_BENCH_DIR = resolve(PROJECT_ROOT, '..', 'shared', 'bench');
export const RESULTS_DIR = join(PROJECT_ROOT, '.bench');

export interface BenchSettings {
  /** A PostgreSQL server where scratch databases may be created and dropped. */
  databaseUrl: string;
  /** Length of each measured phase. */
  seconds: number;
  /** Untimed load before each product phase (JIT, pool and plan caches warm up). */
  warmupSeconds: number;
  /** Writes a V8 CPU profile of the server per product phase into .bench/. */
  profile: boolean;
  /** Keeps the scratch databases for inspection. */
  keepDatabases: boolean;
  /** Runs only the named phases (comma separated: submit, hot, scan, floor, execute). */
  only: Set<string> | null;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const seconds = Number(env.BENCH_SECONDS ?? 20);
  if (!Number.isFinite(seconds) || seconds < 1) throw new Error(`BENCH_SECONDS must be a number >= 1, got "${env.BENCH_SECONDS}"`);
  const only = env.BENCH_ONLY?.trim();
  return {
    databaseUrl: env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres',
    seconds,
    warmupSeconds: Math.min(5, Math.max(2, Math.round(seconds / 5))),
    profile: env.BENCH_PROFILE === '1',
    keepDatabases: env.BENCH_KEEP === '1',
    only: only ? new Set(only.split(',').map((name) => name.trim())) : null,
  };
}
