import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestInventory, type TestInventory } from './helpers.js';

describe('service skeleton', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory();
  });
  afterAll(() => t.close());

  it('answers health, openapi and docs without a token', async () => {
    expect((await t.request('GET', '/api/v1/health')).json()).toEqual({ status: 'ok' });
    const openapi = await t.request('GET', '/api/v1/openapi.json');
    expect(openapi.statusCode).toBe(200);
    expect(openapi.json().paths['/api/v1/auth/login']).toBeDefined();
    expect((await t.request('GET', '/docs')).statusCode).toBeLessThan(400);
  });

  it('logs the admin in and shows effective permissions', async () => {
    const me = await t.request('GET', '/api/v1/auth/me', { token: t.adminToken });
    expect(me.statusCode).toBe(200);
    expect(me.json().permissions).toContain('crossDomain');
  });
});
