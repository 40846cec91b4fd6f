import type { LightMyRequestResponse } from 'fastify';
import { hashPassword } from '@wms/platform';
import { createTestDatabase } from '@wms/platform/testing';
import { buildTrackingApp, type TrackingApp } from '../src/app.js';
import type { TrackingConfig } from '../src/config.js';
import { users, type TrackingRole } from '../src/db/schema/index.js';

export const ADMIN = { username: 'admin', password: 'admin-pass-123' };
export const DEPARTMENT = 'ALPHA';
export const TEST_PASSWORD = 'password-1';

export interface TestUser {
  id: number;
  username: string;
  token: string;
}

export interface TestTracking {
  service: TrackingApp;
  adminToken: string;
  adminId: number;
  request(method: string, url: string, options?: { token?: string; body?: unknown; headers?: Record<string, string> }): Promise<LightMyRequestResponse>;
  /** Creates a user of the department through the API as admin and logs in as that user. */
  user(role: string, extra?: { name?: string }): Promise<TestUser>;
  /** Writes an account straight into the table (for rows the API cannot make, e.g. another department). */
  insertUser(fields: { username: string; role?: TrackingRole; department: string; active?: boolean; password?: string }): Promise<number>;
  login(username: string, password: string): Promise<LightMyRequestResponse>;
  close(): Promise<void>;
}

export function testConfig(databaseUrl: string, overrides: Partial<TrackingConfig> = {}): TrackingConfig {
  return {
    host: '127.0.0.1',
    port: 0,
    dataDir: '/tmp/wms-test',
    databaseUrl,
    jwtSecret: 'test-secret-for-tracking-0123456789',
    adminUsername: ADMIN.username,
    adminPassword: ADMIN.password,
    orgDepartment: DEPARTMENT,
    materialCategoryPrefix: DEPARTMENT,
    serialPrefix: '',
    dataScopeUngrouped: 'ALL',
    nodeEnv: 'test',
    ...overrides,
  };
}

let userCounter = 0;
export const uniqueName = (prefix: string) => {
  userCounter += 1;
  return `${prefix.toLowerCase()}_${userCounter}_${Math.random().toString(36).slice(2, 6)}`;
};

/** One tracking app on a fresh database (PGlite in memory, or a new PostgreSQL database). */
export async function buildTestTracking(options: { config?: Partial<TrackingConfig> } = {}): Promise<TestTracking> {
  const database = await createTestDatabase('trk');
  const service = await buildTrackingApp(testConfig(database.url, options.config));
  const { app } = service;

  const request: TestTracking['request'] = (method, url, opts = {}) =>
    app.inject({
      method: method as 'GET',
      url,
      headers: { ...(opts.token ? { authorization: `Bearer ${opts.token}` } : {}), ...opts.headers },
      ...(opts.body !== undefined ? { payload: opts.body as object } : {}),
    });
  const login = (username: string, password: string) => request('POST', '/api/v1/auth/login', { body: { username, password } });

  const adminLogin = await login(ADMIN.username, ADMIN.password);
  if (adminLogin.statusCode !== 200) throw new Error(`admin login failed: ${adminLogin.body}`);
  const { token: adminToken, user: adminUser } = adminLogin.json() as { token: string; user: { id: number } };

  return {
    service,
    adminToken,
    adminId: adminUser.id,
    request,
    login,
    async user(role, extra = {}) {
      const username = uniqueName(role);
      const body = { username, password: TEST_PASSWORD, name: extra.name ?? username, role };
      const created = await request('POST', '/api/v1/users', { token: adminToken, body });
      if (created.statusCode !== 201) throw new Error(`creating test user failed: ${created.body}`);
      const loggedIn = await login(username, TEST_PASSWORD);
      return { id: created.json().id as number, username, token: loggedIn.json().token as string };
    },
    async insertUser(fields) {
      const passwordHash = await hashPassword(fields.password ?? TEST_PASSWORD);
      const [row] = await service.deps.database.transaction({ actor: 'test-fixture' }, (tx) =>
        tx
          .insert(users)
          .values({
            username: fields.username,
            passwordHash,
            name: fields.username,
            role: fields.role ?? 'OPERATOR',
            department: fields.department,
            active: fields.active ?? true,
          })
          .returning({ id: users.id }),
      );
      return row!.id;
    },
    async close() {
      await service.close();
      await database.drop();
    },
  };
}
