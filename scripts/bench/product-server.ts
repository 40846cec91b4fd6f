import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, unlinkSync } from 'node:fs';
import http from 'node:http';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { METER_KEYS, type MeterTotals, type ServerTotals } from './server-meter-preload.js';
import { profileFileName, summarizeProfileFile, type ProfileKind, type ProfileSummary } from './cpu-profile.js';
import { treeCpuMs, treeOf } from './proc.js';
import { PROJECT_ROOT } from './settings.js';

/**
 * The inventory service as deployed: its production start (`npm run start:inventory`: apps/inventory/src/server.ts
 * through the tsx of node_modules/.bin, with the script's node flags), on the project's Node, in its own process
 * (and its cluster workers when INVENTORY_WORKERS asks for them). The bench reaches it only over HTTP, its process tree through /proc and
 * its query counts and CPU profiles through the preloaded meter (server-meter-preload.ts).
 */
/**
 * BENCH_PRODUCT_DIR measures another checkout of the product (an older commit, for before/after figures
 * per change) with this bench; see docs/benchmarks.md.
 */
export const PRODUCT_ROOT = process.env.BENCH_PRODUCT_DIR?.trim() || PROJECT_ROOT;
const PRELOAD = fileURLToPath(new URL('./server-meter-preload.ts', import.meta.url));
const BIN = join(PROJECT_ROOT, 'node_modules', '.bin');
const HEALTHY_WITHIN_MS = 120_000;
const STOP_WITHIN_MS = 10_000;


export interface ProductServer {
  /** The launched process (tsx); the service runs under it, its workers under that. */
  pid: number;
  baseUrl: string;
  /** CPU ms used so far by the whole process tree of the service. */
  cpuMs(): number;
  /** Pids of the live processes of the tree. */
  pids(): number[];
  /** Query counters summed over the service's processes. */
  totals(): Promise<MeterTotals>;
  /** Resident memory of every process of the tree that runs the meter, summed. */
  rssBytes(): Promise<number>;
  profile: {
    start(kind: ProfileKind): Promise<void>;
    stop(dir: string, phase: string, kind: ProfileKind): Promise<Array<ProfileSummary & { pid: number; worker: boolean }>>;
  };
  stop(): Promise<void>;
}

export interface ServerEnvironment {
  databaseUrl: string;
  jwtSecret: string;
}

/**
 * What the production start (`npm run start:inventory`) passes to tsx, its node flags and the entry, and
 * the entry itself (the process the meter goes into). A checkout from before that script existed started
 * the entry bare.
 */
function productionStart(): { args: string[]; entry: string } {
  const { scripts } = JSON.parse(readFileSync(join(PRODUCT_ROOT, 'package.json'), 'utf8')) as { scripts?: Record<string, string> };
  const command = scripts?.['start:inventory'] ?? 'tsx apps/inventory/src/server.ts';
  const [launcher, ...words] = command.trim().split(/\s+/);
  const args = words.map((word) => (word.endsWith('.ts') ? join(PRODUCT_ROOT, word) : word));
  const entry = args.find((arg) => arg.endsWith('.ts'));
  if (launcher !== 'tsx' || !entry) throw new Error(`start:inventory is expected to run a .ts entry with tsx, not: ${command}`);
  return { args, entry };
}

/** A free local port: bound then released (the service binds it a moment later). */
function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
  });
}

function childEnvironment(env: ServerEnvironment, port: number, meterDir: string, entry: string): NodeJS.ProcessEnv {
  const { REDIS_URL: _redis, INVENTORY_WORKERS: workers, ...inherited } = process.env;
  return {
    ...inherited,
    PATH: `${BIN}:${process.env.PATH ?? ''}`,
    NODE_ENV: 'production',
    DATABASE_URL: env.databaseUrl,
    JWT_SECRET: env.jwtSecret,
    LOG_LEVEL: 'warn',
    SEED_DEMO: '0',
    HOST: '127.0.0.1',
    INVENTORY_PORT: String(port),
    DATA_DIR: meterDir,
    // several workers share the 5-second lock and the credential counters through Redis (decisions, Platform 19)
    ...(workers && Number(workers) > 1 ? { INVENTORY_WORKERS: workers, REDIS_URL: process.env.BENCH_REDIS_URL ?? 'redis://127.0.0.1:6379' } : {}),
    NODE_OPTIONS: [process.env.NODE_OPTIONS, `--import ${PRELOAD}`].filter(Boolean).join(' '),
    BENCH_METER_DIR: meterDir,
    BENCH_METER_ENTRY: entry,
  };
}

/** A meter answered with an error (as opposed to a socket nobody listens on any more). */
class MeterError extends Error {}

function meterCall<T>(socketPath: string, path: string): Promise<T> {
  return new Promise((resolve, reject) => {
    const request = http.request({ socketPath, path, method: 'POST' }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.on('end', () => {
        const body = JSON.parse(Buffer.concat(chunks).toString('utf8') || '{}') as T & { error?: string };
        if (response.statusCode !== 200) reject(new MeterError(`meter ${path}: ${body.error}`));
        else resolve(body);
      });
    });
    request.on('error', reject);
    request.end();
  });
}

/** One call to every live meter of the service; the socket of a process that ended is removed. */
async function everyMeter<T>(dir: string, path: (pid: number) => string): Promise<T[]> {
  const sockets = readdirSync(dir).filter((name) => name.endsWith('.sock'));
  const answers = await Promise.all(
    sockets.map((name) =>
      meterCall<T>(join(dir, name), path(Number(name.slice(0, -5)))).catch((err: unknown) => {
        if (err instanceof MeterError) throw err;
        if (existsSync(join(dir, name))) unlinkSync(join(dir, name));
        return undefined;
      }),
    ),
  );
  return answers.filter((answer): answer is Awaited<T> => answer !== undefined);
}

async function waitHealthy(baseUrl: string, child: ChildProcess): Promise<void> {
  const deadline = performance.now() + HEALTHY_WITHIN_MS;
  while (performance.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`the inventory service exited (${child.exitCode}) before it was healthy`);
    const status = await fetch(`${baseUrl}/api/v1/health`).then(
      (response) => response.status,
      () => 0,
    );
    if (status === 200) return;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  throw new Error(`the inventory service was not healthy within ${HEALTHY_WITHIN_MS / 1000} s`);
}

/** Starts the service on `databaseUrl` (it migrates it) and answers once GET /api/v1/health is 200. */
export async function startProductServer(env: ServerEnvironment, log: (text: string) => void): Promise<ProductServer> {
  const port = await freePort();
  const meterDir = mkdtempSync(join(tmpdir(), 'wms-bench-meter-'));
  const start = productionStart();
  const child = spawn(join(BIN, 'tsx'), start.args, {
    cwd: PRODUCT_ROOT,
    env: childEnvironment(env, port, meterDir, start.entry),
    stdio: ['ignore', 'pipe', 'pipe'],
    detached: true, // its own process group: a stop that hangs can end the whole tree at once
  });
  const relay = (chunk: Buffer) => {
    for (const line of chunk.toString('utf8').split('\n')) if (line.trim()) log(`  [inventory] ${line}`);
  };
  child.stdout!.on('data', relay);
  child.stderr!.on('data', relay);
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const pid = child.pid!;
  const baseUrl = `http://127.0.0.1:${port}`;
  const stop = async () => {
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGTERM');
      const timer = setTimeout(() => {
        try {
          process.kill(-pid, 'SIGKILL'); // the whole process group: launcher, service, workers
        } catch {
          // already gone
        }
      }, STOP_WITHIN_MS);
      await exited;
      clearTimeout(timer);
    }
    rmSync(meterDir, { recursive: true, force: true });
  };
  try {
    await waitHealthy(baseUrl, child);
  } catch (err) {
    await stop();
    throw err;
  }
  return {
    pid,
    baseUrl,
    cpuMs: () => treeCpuMs(pid),
    pids: () => treeOf(pid).map((stat) => stat.pid),
    async totals() {
      const all = await everyMeter<ServerTotals>(meterDir, () => '/totals');
      const sum = (key: keyof MeterTotals) => all.reduce((total, one) => total + one[key], 0);
      return Object.fromEntries(METER_KEYS.map((key) => [key, sum(key)])) as MeterTotals;
    },
    async rssBytes() {
      const all = await everyMeter<ServerTotals>(meterDir, () => '/totals');
      return all.reduce((total, one) => total + one.rssBytes, 0);
    },
    profile: {
      async start(kind) {
        await everyMeter(meterDir, () => `/profile/start?kind=${kind}`);
      },
      async stop(dir, phase, kind) {
        const processes = await everyMeter<ServerTotals>(meterDir, () => '/totals');
        const fileOf = (meterPid: number) => join(dir, profileFileName(kind, `${phase}-${meterPid}`));
        await everyMeter(meterDir, (meterPid) => `/profile/stop?file=${encodeURIComponent(fileOf(meterPid))}`);
        return processes
          .filter((one) => existsSync(fileOf(one.pid)))
          .map((one) => ({ pid: one.pid, worker: one.worker, ...summarizeProfileFile(kind, fileOf(one.pid)) }));
      },
    },
    stop,
  };
}
