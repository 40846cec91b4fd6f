import { inject } from 'vitest';
import type { LockStore } from '@wms/platform';
import { createTestUser, nextTestNumber, startTestService, uniqueName, type TestClient, type TestUser } from '@wms/platform/testing';
import { buildInventoryApp, type BuildOptions, type InventoryApp } from '../src/app.js';
import type { InventoryConfig } from '../src/config.js';

export type { TestUser };

export const ADMIN = { username: 'admin', password: 'admin-pass-123' };

export interface TestInventory extends TestClient {
  service: InventoryApp;
  adminToken: string;
  /** Creates a user through the API as admin and logs in as that user. */
  user(role: string, company: string | null, extra?: { name?: string }): Promise<TestUser>;
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

/** One inventory app on a fresh database (PGlite in memory, or a new PostgreSQL database). */
export async function buildTestInventory(
  options: { config?: Partial<InventoryConfig>; locks?: LockStore; dispatcher?: BuildOptions['dispatcher'] } = {},
): Promise<TestInventory> {
  const t = await startTestService({
    databasePrefix: 'inv',
    pgliteTemplate: inject('pgliteTemplates')?.inventory,
    build: (url) => buildInventoryApp(testConfig(url, options.config), { locks: options.locks, dispatcher: options.dispatcher }),
    admin: ADMIN,
  });
  const adminToken = t.adminLogin.json().token as string;

  return {
    service: t.service,
    adminToken,
    request: t.request,
    login: t.login,
    async user(role, company, extra = {}) {
      const n = nextTestNumber();
      const body = { username: uniqueName(role, n), password: 'password-1', name: extra.name ?? `${role} ${n}`, role };
      return createTestUser(t, adminToken, company ? { ...body, company_name: company } : body);
    },
    close: t.close,
  };
}
