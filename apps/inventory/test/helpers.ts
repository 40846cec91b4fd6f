import type { LightMyRequestResponse } from 'fastify';
import { createTestDatabase } from '@wms/platform/testing';
import type { LockStore } from '@wms/platform';
import { buildInventoryApp, type BuildOptions, type InventoryApp } from '../src/app.js';
import type { InventoryConfig } from '../src/config.js';

export const ADMIN = { username: 'admin', password: 'admin-pass-123' };

export interface TestUser {
  id: number;
  username: string;
  token: string;
}

export interface TestInventory {
  service: InventoryApp;
  adminToken: string;
  request(method: string, url: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  /** Creates a user through the API as admin and logs in as that user. */
  user(role: string, company: string | null, extra?: { name?: string }): Promise<TestUser>;
  login(username: string, password: string): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export function testConfig(databaseUrl: string, overrides: Partial<InventoryConfig> = {}): InventoryConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir: '/tmp/wms-test',
    databaseUrl,
    jwtSecret: 'test-secret-for-inventory-0123456789',
    adminUsername: ADMIN.username,
    adminPassword: ADMIN.password,
    seedDemo: false,
    nodeEnv: 'test',
    ...overrides,
  };
}

let userCounter = 0;

/** One inventory app on a fresh database (PGlite in memory, or a new PostgreSQL database). */
export async function buildTestInventory(
  options: { config?: Partial<InventoryConfig>; locks?: LockStore; dispatcher?: BuildOptions['dispatcher'] } = {},
): Promise<TestInventory> {
  const database = await createTestDatabase('inv');
  const service = await buildInventoryApp(testConfig(database.url, options.config), { locks: options.locks, dispatcher: options.dispatcher });
  const { app } = service;

  const request: TestInventory['request'] = (method, url, opts = {}) =>
    app.inject({
      method: method as 'GET',
      url,
      headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
      ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
    });
  const login = (username: string, password: string) => request('POST', '/api/v1/auth/login', { body: { username, password } });

  const adminLogin = await login(ADMIN.username, ADMIN.password);
  const adminToken = adminLogin.json().token as string;

  return {
    service,
    adminToken,
    request,
    login,
    async user(role, company, extra = {}) {
      userCounter += 1;
      const username = `${role.toLowerCase()}_${userCounter}_${Math.random().toString(36).slice(2, 6)}`;
      const body: Record<string, unknown> = { username, password: 'password-1', name: extra.name ?? `${role} ${userCounter}`, role };
      if (company) body.company_name = company;
      const created = await request('POST', '/api/v1/users', { token: adminToken, body });
      if (created.statusCode !== 201) throw new Error(`creating test user failed: ${created.body}`);
      const loggedIn = await login(username, 'password-1');
      return { id: created.json().id as number, username, token: loggedIn.json().token as string };
    },
    async close() {
      await service.close();
      await database.drop();
    },
  };
}
