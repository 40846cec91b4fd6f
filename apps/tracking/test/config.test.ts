import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { ConfigError, defaultPoolSize } from '@wms/platform';
import { loadTrackingConfig } from '../src/config.js';

const dataDir = mkdtempSync(join(tmpdir(), 'trk-config-'));
const base = { DATA_DIR: dataDir };

function configErrorOf(env: Record<string, string>): ConfigError {
  try {
    loadTrackingConfig({ ...base, ...env });
  } catch (err) {
    if (err instanceof ConfigError) return err;
    throw err;
  }
  throw new Error(`expected a ConfigError for ${JSON.stringify(env)}`);
}

describe('tracking configuration', () => {
  afterAll(() => rmSync(dataDir, { recursive: true, force: true }));

  it('has the documented defaults', () => {
    const config = loadTrackingConfig({ ...base });
    expect(config).toMatchObject({
      host: '127.0.0.1',
      port: 8081,
      dataDir,
      databaseUrl: join(dataDir, 'tracking'),
      adminUsername: 'admin',
      orgDepartment: 'ALPHA',
      materialCategoryPrefix: 'ALPHA',
      serialPrefix: '',
      dataScopeUngrouped: 'ALL',
      credentialLimits: { loginFailuresPerUser: 10, loginFailuresPerAddress: 20, apiKeyFailuresPerAddress: 10, windowSeconds: 900 },
    });
    expect(config.adminPassword).toBeUndefined();
    expect(config.webhookApiKey).toBeUndefined();
    expect(config.redisUrl).toBeUndefined();
    expect(config.databasePoolSize).toBe(defaultPoolSize());
  });

  it('defaults the material category prefix to the department', () => {
    expect(loadTrackingConfig({ ...base, ORG_DEPARTMENT: 'beta' }).materialCategoryPrefix).toBe('BETA');
  });

  it('reads every setting', () => {
    const config = loadTrackingConfig({
      ...base,
      HOST: '0.0.0.0',
      TRACKING_PORT: '9091',
      TRACKING_DATABASE_URL: 'postgres://u@db:5432/trk',
      ADMIN_USERNAME: 'boss',
      ADMIN_PASSWORD: 'secret-pass',
      WEBHOOK_API_KEY: 'hook-key',
      ORG_DEPARTMENT: '  beta ',
      MATERIAL_CATEGORY_PREFIX: 'BETA/成品',
      SERIAL_PREFIX: 'x',
      DATA_SCOPE_UNGROUPED: 'none',
      REDIS_URL: 'redis://cache:6379',
      LOGIN_MAX_FAILURES_PER_USER: '8',
      LOGIN_MAX_FAILURES_PER_IP: ' 50 ',
      API_KEY_MAX_FAILURES_PER_IP: '30',
      AUTH_FAILURE_WINDOW_SECONDS: '600',
      DATABASE_POOL_SIZE: '4',
    });
    expect(config).toMatchObject({
      host: '0.0.0.0',
      port: 9091,
      databaseUrl: 'postgres://u@db:5432/trk',
      adminUsername: 'boss',
      adminPassword: 'secret-pass',
      webhookApiKey: 'hook-key',
      orgDepartment: 'BETA',
      materialCategoryPrefix: 'BETA/成品',
      serialPrefix: 'X',
      dataScopeUngrouped: 'NONE',
      redisUrl: 'redis://cache:6379',
      credentialLimits: { loginFailuresPerUser: 8, loginFailuresPerAddress: 50, apiKeyFailuresPerAddress: 30, windowSeconds: 600 },
      databasePoolSize: 4,
    });
    expect(loadTrackingConfig({ ...base, TRACKING_DATABASE_URL: 'memory://' }).databaseUrl).toBe('memory://');
  });

  it.each([
    ['TRACKING_PORT', 'abc'],
    ['TRACKING_PORT', '70000'],
    ['SERIAL_PREFIX', 'AB'],
    ['SERIAL_PREFIX', '-'],
    ['DATA_SCOPE_UNGROUPED', 'maybe'],
    ['TRACKING_DATABASE_URL', 'mysql://x'],
    ['ORG_DEPARTMENT', '   '],
    ['MATERIAL_CATEGORY_PREFIX', 'ALPHA/'],
    ['MATERIAL_CATEGORY_PREFIX', '/ALPHA'],
    ['ADMIN_PASSWORD', '123'],
    ['JWT_SECRET', 'short'],
    ['REDIS_URL', 'cache:6379'],
    ['LOGIN_MAX_FAILURES_PER_USER', '0'],
    ['LOGIN_MAX_FAILURES_PER_IP', 'many'],
    ['API_KEY_MAX_FAILURES_PER_IP', '2.5'],
    ['AUTH_FAILURE_WINDOW_SECONDS', '-1'],
    ['AUTH_FAILURE_WINDOW_SECONDS', '86401'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', 'ten'],
  ])('refuses %s=%s with an error naming the setting', (setting, value) => {
    const error = configErrorOf({ [setting]: value });
    expect(error.setting).toBe(setting);
    expect(error.message).toContain(setting);
    expect(error.message).not.toContain('\n');
  });

  it('requires JWT_SECRET in production', () => {
    expect(configErrorOf({ NODE_ENV: 'production' }).setting).toBe('JWT_SECRET');
    expect(loadTrackingConfig({ ...base, NODE_ENV: 'production', JWT_SECRET: 'a-long-shared-secret-123' }).jwtSecret).toBeTruthy();
  });

  it('derives its own token secret from JWT_SECRET, distinct from the shared one', () => {
    const shared = 'a-long-shared-secret-123';
    const first = loadTrackingConfig({ ...base, JWT_SECRET: shared }).jwtSecret;
    expect(first).not.toBe(shared);
    expect(loadTrackingConfig({ ...base, JWT_SECRET: shared }).jwtSecret).toBe(first);
  });

  it('generates a secret once and keeps it in the data folder', () => {
    const folder = mkdtempSync(join(tmpdir(), 'trk-secret-'));
    try {
      const first = loadTrackingConfig({ DATA_DIR: folder }).jwtSecret;
      expect(readFileSync(join(folder, 'jwt-secret-tracking'), 'utf8')).toBe(first);
      expect(loadTrackingConfig({ DATA_DIR: folder }).jwtSecret).toBe(first);
    } finally {
      rmSync(folder, { recursive: true, force: true });
    }
  });
});
