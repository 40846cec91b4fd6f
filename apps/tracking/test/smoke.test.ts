import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking } from './helpers.js';

describe('tracking service skeleton', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('answers health without a token', async () => {
    const health = await t.request('GET', '/api/v1/health');
    expect(health.statusCode).toBe(200);
    expect(health.json()).toEqual({ status: 'ok' });
  });

  it('serves the OpenAPI document and the docs page without a token', async () => {
    const openapi = await t.request('GET', '/api/v1/openapi.json');
    expect(openapi.statusCode).toBe(200);
    const paths = openapi.json().paths as Record<string, unknown>;
    for (const path of ['/api/v1/auth/login', '/api/v1/auth/me', '/api/v1/users', '/api/v1/users/{id}']) {
      expect(paths[path], path).toBeDefined();
    }
    expect((await t.request('GET', '/docs')).statusCode).toBeLessThan(400);
  });

  it('answers unknown paths with 404 and an error body', async () => {
    const res = await t.request('GET', '/api/v1/nothing-here', { token: t.adminToken });
    expect(res.statusCode).toBe(404);
    expect(res.json()).toMatchObject({ code: 'NOT_FOUND' });
  });
});
