import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from 'vitest';

const START = fileURLToPath(new URL('../start.ts', import.meta.url));
const dataDir = mkdtempSync(join(tmpdir(), 'wms-start-'));
const inventoryPort = 20000 + Math.floor(Math.random() * 20000);
const trackingPort = inventoryPort + 1;
const env = {
  ...process.env,
  DATA_DIR: dataDir,
  INVENTORY_PORT: String(inventoryPort),
  TRACKING_PORT: String(trackingPort),
  ADMIN_PASSWORD: 'start-admin-pass',
  LOG_LEVEL: 'error',
  DATABASE_URL: '',
  TRACKING_DATABASE_URL: '',
  REDIS_URL: '',
};

interface Started {
  child: ChildProcess;
  output: () => string;
  exited: Promise<number | null>;
}

function start(extraEnv: Record<string, string> = {}): Started {
  const child = spawn(process.execPath, ['--import', 'tsx', START], { env: { ...env, ...extraEnv }, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, output: () => output, exited };
}

async function waitFor(started: Started, text: string, timeoutMs = 90_000) {
  const deadline = Date.now() + timeoutMs;
  while (!started.output().includes(text)) {
    if (Date.now() > deadline || started.child.exitCode !== null) throw new Error(`did not see "${text}":\n${started.output()}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

const api = (port: number, path: string, init?: RequestInit) => fetch(`http://127.0.0.1:${port}/api/v1${path}`, init);
const login = (port: number) =>
  api(port, '/auth/login', {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ username: 'admin', password: 'start-admin-pass' }),
  });

/**
 * The wiring of npm start: a demo product awaiting receipt in the tracking service is looked up by its
 * identity card, stocked in at the inventory service, and the dispatcher's notification moves it to 已入库.
 */
async function stockInByIdentityCard(inventoryToken: string, serial: string) {
  const auth = { authorization: `Bearer ${inventoryToken}` };
  const card = (await (await api(inventoryPort, `/inbound/stock/card/${serial}`, { headers: auth })).json()) as Record<string, unknown>;
  expect(card).toMatchObject({ serial_number: serial, base_id: expect.any(Number), material_name: '智能控制器', company_name: 'ALPHA' });
  const stocked = await api(inventoryPort, '/inbound/stock', {
    method: 'POST',
    headers: { ...auth, 'content-type': 'application/json' },
    body: JSON.stringify({ source_table: 'stock_product', base_id: card.base_id, serial_number: serial, in_quantity: 1, company_name: card.company_name }),
  });
  expect(stocked.status).toBe(201);
  const { token } = (await (await login(trackingPort)).json()) as { token: string };
  const deadline = Date.now() + 20_000;
  let status = '';
  while (status !== '已入库' && Date.now() < deadline) {
    await new Promise((resolve) => setTimeout(resolve, 200));
    const product = await api(trackingPort, `/products/scan/${serial}`, { headers: { authorization: `Bearer ${token}` } });
    status = ((await product.json()) as { status: string }).status;
  }
  expect(status).toBe('已入库');
}

describe('npm start', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('starts both services with demo data, refuses a second copy, stops cleanly on Ctrl-C and starts again', async () => {
    const first = start();
    await waitFor(first, 'Ctrl-C');
    expect(first.output()).toContain(`http://127.0.0.1:${inventoryPort}`);
    expect(first.output()).toContain(`http://127.0.0.1:${trackingPort}`);
    expect(first.output()).toContain('admin / start-admin-pass');
    expect((await api(inventoryPort, '/health')).status).toBe(200);
    expect((await api(trackingPort, '/health')).status).toBe(200);
    const { token } = (await (await login(inventoryPort)).json()) as { token: string };
    const materials = (await (await api(inventoryPort, '/inbound/base?limit=1', { headers: { authorization: `Bearer ${token}` } })).json()) as { total: number };
    expect(materials.total).toBeGreaterThan(20);
    expect((await login(trackingPort)).status).toBe(200);
    await stockInByIdentityCard(token, 'A00000000000C106');

    const second = start({ INVENTORY_PORT: String(inventoryPort + 2), TRACKING_PORT: String(inventoryPort + 3) });
    expect(await second.exited).toBe(1);
    expect(second.output()).toContain('正被进程');

    first.child.kill('SIGINT');
    expect(await first.exited).toBe(0);
    expect(existsSync(join(dataDir, 'inventory.lock'))).toBe(false);
    expect(existsSync(join(dataDir, 'tracking.lock'))).toBe(false);

    const again = start();
    await waitFor(again, 'Ctrl-C');
    const reloaded = await login(inventoryPort);
    expect(reloaded.status).toBe(200);
    const token2 = ((await reloaded.json()) as { token: string }).token;
    const after = (await (await api(inventoryPort, '/inbound/base?limit=1', { headers: { authorization: `Bearer ${token2}` } })).json()) as { total: number };
    expect(after.total).toBe(materials.total);
    again.child.kill('SIGTERM');
    expect(await again.exited).toBe(0);
  }, 240_000);

  it('stops on a bad setting with one line naming it', async () => {
    const bad = start({ INVENTORY_PORT: 'eighty' });
    expect(await bad.exited).toBe(1);
    expect(bad.output().trim().split('\n')).toHaveLength(1);
    expect(bad.output()).toContain('INVENTORY_PORT');
  });
});
