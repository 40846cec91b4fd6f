import { fileURLToPath } from 'node:url';
import { dirname, join, resolve } from 'node:path';
import type { ProfileKind } from './cpu-profile.js';

export const PROJECT_ROOT = resolve(dirname(fileURLToPath(import.meta.url)), '..', '..');
/** The raw baselines live next to the project, shared with the spec (contract §1). */
export const RAW_BENCH_DIR = resolve(PROJECT_ROOT, '..', 'shared', 'bench');
export const RESULTS_DIR = join(PROJECT_ROOT, '.bench');

/** Every phase BENCH_ONLY may name. */
export const PHASE_NAMES = ['submit', 'hot', 'scan', 'floor', 'execute', 'pglite', 'lists', 'stocktake', 'audit'] as const;

export interface BenchSettings {
  /** A PostgreSQL server where scratch databases may be created and dropped. */
  databaseUrl: string;
  /** Length of each measured phase. */
  seconds: number;
  /** Untimed load before each product phase (JIT, pool and plan caches warm up). */
  warmupSeconds: number;
  /** Every comparison (baseline, then product) runs this many times; the report gives medians and spreads. */
  runs: number;
  /** Others' CPU (share of one core) above which a phase counts as disturbed. */
  noiseLimitCore: number;
  /** How long to wait before a phase for a quiet window. */
  quietWaitSeconds: number;
  /** How often a disturbed comparison is run again before it is reported DISTURBED. */
  maxRepeats: number;
  /**
   * Profiles the server per product phase into .bench/ (BENCH_PROFILE): `cpu` (or `1`) a V8 CPU profile,
   * `heap` a sampling allocation profile (what each call allocates, collected objects included).
   */
  profile: ProfileKind | null;
  /** Keeps the scratch databases for inspection. */
  keepDatabases: boolean;
  /** Runs only the named phases (BENCH_ONLY, comma separated). */
  only: Set<string> | null;
}

function profileKindOf(raw: string | undefined): ProfileKind | null {
  const value = raw?.trim() ?? '';
  if (value === '' || value === '0') return null;
  if (value === '1' || value === 'cpu') return 'cpu';
  if (value === 'heap') return 'heap';
  throw new Error(`BENCH_PROFILE must be cpu (or 1) or heap, got "${raw}"`);
}

function numberSetting(env: NodeJS.ProcessEnv, name: string, fallback: number, min: number): number {
  const raw = env[name]?.trim();
  const value = raw ? Number(raw) : fallback;
  if (!Number.isFinite(value) || value < min) throw new Error(`${name} must be a number >= ${min}, got "${raw}"`);
  return value;
}

export function readSettings(env: NodeJS.ProcessEnv = process.env): BenchSettings {
  const seconds = numberSetting(env, 'BENCH_SECONDS', 20, 1);
  const only = env.BENCH_ONLY?.trim() ? new Set(env.BENCH_ONLY.split(',').map((name) => name.trim())) : null;
  const unknown = [...(only ?? [])].filter((name) => !(PHASE_NAMES as readonly string[]).includes(name));
  if (unknown.length) throw new Error(`BENCH_ONLY: unknown phase ${unknown.join(', ')} (known: ${PHASE_NAMES.join(', ')})`);
  return {
    databaseUrl: env.BENCH_DATABASE_URL?.trim() || 'postgres://postgres@127.0.0.1:5432/postgres',
    seconds,
    warmupSeconds: Math.min(5, Math.max(2, Math.round(seconds / 5))),
    runs: Math.round(numberSetting(env, 'BENCH_RUNS', 3, 1)),
    noiseLimitCore: numberSetting(env, 'BENCH_NOISE_LIMIT', 10, 0) / 100,
    quietWaitSeconds: numberSetting(env, 'BENCH_QUIET_WAIT_SECONDS', 30, 0),
    maxRepeats: Math.round(numberSetting(env, 'BENCH_MAX_REPEATS', 2, 0)),
    profile: profileKindOf(env.BENCH_PROFILE),
    keepDatabases: env.BENCH_KEEP === '1',
    only,
  };
}
