import { inject } from 'vitest';
import { hashPassword } from '@wms/platform';
import { createTestUser, startTestService, uniqueName, type TestClient, type TestUser } from '@wms/platform/testing';
import { buildTrackingApp, type TrackingApp } from '../src/app.js';
import type { TrackingConfig } from '../src/config.js';
import { users, type TrackingRole } from '../src/db/schema/index.js';

export { uniqueName, type TestUser };

export const ADMIN = { username: 'admin', password: 'admin-pass-123' };
export const DEPARTMENT = 'ALPHA';
export const TEST_PASSWORD = 'password-1';

export interface TestTracking extends TestClient {
  service: TrackingApp;
  adminToken: string;
  adminId: number;
  /** Creates a user of the department through the API as admin and logs in as that user. */
  user(role: string, extra?: { name?: string }): Promise<TestUser>;
  /** Writes an account straight into the table (for rows the API cannot make, e.g. another department). */
  insertUser(fields: { username: string; role?: TrackingRole; department: string; active?: boolean; password?: string }): Promise<number>;
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

/** One tracking app on a fresh database (PGlite in memory, or a new PostgreSQL database). */
export async function buildTestTracking(options: { config?: Partial<TrackingConfig> } = {}): Promise<TestTracking> {
  const t = await startTestService({
    databasePrefix: 'trk',
    pgliteTemplate: inject('pgliteTemplates')?.tracking,
    build: (url) => buildTrackingApp(testConfig(url, options.config)),
    admin: ADMIN,
  });
  const { service } = t;
  if (t.adminLogin.statusCode !== 200) throw new Error(`admin login failed: ${t.adminLogin.body}`);
  const { token: adminToken, user: adminUser } = t.adminLogin.json() as { token: string; user: { id: number } };

  return {
    service,
    adminToken,
    adminId: adminUser.id,
    request: t.request,
    login: t.login,
    async user(role, extra = {}) {
      const username = uniqueName(role);
      return createTestUser(t, adminToken, { username, password: TEST_PASSWORD, name: extra.name ?? username, role });
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
    close: t.close,
  };
}
