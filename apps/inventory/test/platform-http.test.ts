import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ConfigError, defaultPoolSize } from '@wms/platform';
import { loadInventoryConfig } from '../src/config.js';
import { buildTestInventory, type TestInventory } from './helpers.js';

describe('shared request machinery', () => {
  let t: TestInventory;
  let noKey: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory({ config: { internalApiKey: 'internal-key-123' } });
    noKey = await buildTestInventory();
  });
  afterAll(async () => {
    await t.close();
    await noKey.close();
  });

  it('answers unknown routes with 404 in the error shape', async () => {
    const res = await t.request('GET', '/api/v1/nothing-here', { token: t.adminToken });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
    expect(typeof res.json().msg).toBe('string');
  });

  it('refuses a JSON body over 1 MiB with 413', async () => {
    const huge = { username: 'x'.repeat(1024 * 1024 + 10), password: 'x' };
    const res = await t.request('POST', '/api/v1/auth/login', { body: huge });
    expect(res.statusCode).toBe(413);
    expect(res.json().code).toBe('PAYLOAD_TOO_LARGE');
  });

  it('checks X-API-Key on internal routes and answers 503 while the key setting is empty', async () => {
    expect((await t.request('GET', '/api/v1/internal/ping')).statusCode).toBe(401);
    expect((await t.request('GET', '/api/v1/internal/ping', { headers: { 'x-api-key': 'wrong' } })).statusCode).toBe(401);
    const ok = await t.request('GET', '/api/v1/internal/ping', { headers: { 'x-api-key': 'internal-key-123' } });
    expect(ok.statusCode).toBe(200);
    const unset = await noKey.request('GET', '/api/v1/internal/ping', { headers: { 'x-api-key': 'anything' } });
    expect(unset.statusCode).toBe(503);
    expect(unset.json().code).toBe('KEY_NOT_CONFIGURED');
  });

  it('documents every route in OpenAPI', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).json();
    expect(doc.openapi).toMatch(/^3\./);
    expect(Object.keys(doc.paths)).toEqual(expect.arrayContaining(['/api/v1/users', '/api/v1/permissions/role/{role_code}', '/api/v1/health']));
  });
});

describe('configuration', () => {
  const bad: Array<[string, string]> = [
    ['INVENTORY_PORT', 'eighty'],
    ['DATABASE_URL', 'mysql://localhost/x'],
    ['REDIS_URL', 'localhost:6379'],
    ['TRACKING_URL', 'not a url'],
    ['SEED_DEMO', 'maybe'],
    ['JWT_SECRET', 'short'],
    ['LOGIN_MAX_FAILURES_PER_USER', '0'],
    ['LOGIN_MAX_FAILURES_PER_IP', 'twenty'],
    ['API_KEY_MAX_FAILURES_PER_IP', '1e3'],
    ['AUTH_FAILURE_WINDOW_SECONDS', '86401'],
    ['AUDIT_EXPORT_NICE', '20'],
    ['AUDIT_EXPORT_NICE', '0'],
    ['DATABASE_POOL_SIZE', '0'],
    ['DATABASE_POOL_SIZE', '2.5'],
  ];
  it.each(bad)('stops on a bad %s with a message naming it', (setting, value) => {
    expect(() => loadInventoryConfig({ DATA_DIR: '/tmp/wms-config-test', [setting]: value })).toThrowError(ConfigError);
    expect(() => loadInventoryConfig({ DATA_DIR: '/tmp/wms-config-test', [setting]: value })).toThrowError(setting);
  });

  it('requires JWT_SECRET in production', () => {
    expect(() => loadInventoryConfig({ NODE_ENV: 'production', DATA_DIR: '/tmp/wms-config-test' })).toThrowError('JWT_SECRET');
  });

  it('reads the defaults of contract §1', () => {
    const config = loadInventoryConfig({ DATA_DIR: '/tmp/wms-config-test' });
    expect(config).toMatchObject({ host: '127.0.0.1', port: 8080, databaseUrl: '/tmp/wms-config-test/inventory', adminUsername: 'admin' });
    expect(config.redisUrl).toBeUndefined();
    expect(config.internalApiKey).toBeUndefined();
    expect(config.credentialLimits).toEqual({ loginFailuresPerUser: 10, loginFailuresPerAddress: 20, apiKeyFailuresPerAddress: 10, windowSeconds: 900 });
    expect(config.auditExportNice).toBe(2);
    expect(loadInventoryConfig({ DATA_DIR: '/tmp/wms-config-test', AUDIT_EXPORT_NICE: '19' }).auditExportNice).toBe(19);
    expect(config.databasePoolSize).toBe(defaultPoolSize());
    expect(loadInventoryConfig({ DATA_DIR: '/tmp/wms-config-test', DATABASE_POOL_SIZE: '24' }).databasePoolSize).toBe(24);
  });

  it('runs several workers only on PostgreSQL with Redis, where the lock and the counters are shared', () => {
    const base = { DATA_DIR: '/tmp/wms-config-test', INVENTORY_WORKERS: '2' };
    const postgres = 'postgres://postgres@127.0.0.1:5432/x';
    expect(() => loadInventoryConfig(base)).toThrowError('INVENTORY_WORKERS');
    expect(() => loadInventoryConfig({ ...base, DATABASE_URL: postgres })).toThrowError('REDIS_URL');
    expect(loadInventoryConfig({ ...base, DATABASE_URL: postgres, REDIS_URL: 'redis://127.0.0.1:6379' }).workers).toBe(2);
    expect(() => loadInventoryConfig({ ...base, INVENTORY_WORKERS: '0' })).toThrowError(ConfigError);
    expect(loadInventoryConfig({ DATA_DIR: '/tmp/wms-config-test' }).workers).toBe(1);
  });

  it('reads the credential throttle limits', () => {
    const config = loadInventoryConfig({
      DATA_DIR: '/tmp/wms-config-test',
      LOGIN_MAX_FAILURES_PER_USER: '8',
      LOGIN_MAX_FAILURES_PER_IP: '50',
      API_KEY_MAX_FAILURES_PER_IP: '30',
      AUTH_FAILURE_WINDOW_SECONDS: '600',
    });
    expect(config.credentialLimits).toEqual({ loginFailuresPerUser: 8, loginFailuresPerAddress: 50, apiKeyFailuresPerAddress: 30, windowSeconds: 600 });
  });
});
