import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking } from './helpers.js';

let t: TestTracking;

beforeAll(async () => {
  t = await buildTestTracking();
});
afterAll(async () => {
  await t?.close();
});

describe('tracking input rules', () => {
  it('caps paging and ranking limits instead of refusing them', async () => {
    const products = await t.request('GET', '/api/v1/products?limit=500', { token: t.adminToken });
    expect(products.statusCode).toBe(200);
    expect(products.json().limit).toBe(200);
    const alerts = await t.request('GET', '/api/v1/screen/alerts?limit=5000', { token: t.adminToken });
    expect(alerts.statusCode).toBe(200);
  });

  it('answers validation failures with 422 in Chinese, naming the field', async () => {
    const response = await t.request('GET', '/api/v1/products?page=0', { token: t.adminToken });
    expect(response.statusCode).toBe(422);
    expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'page', msg: '字段 page 不合法: 应当为 >= 1' });
  });

  it('refuses a NUL character with 422 naming the field, also on login', async () => {
    const login = await t.request('POST', '/api/v1/auth/login', { body: { username: 'a\u0000b', password: 'x' } });
    expect(login.statusCode).toBe(422);
    expect(login.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'username' });
    const scan = await t.request('GET', '/api/v1/products/scan/A%00B', { token: t.adminToken });
    expect(scan.statusCode).toBe(422);
    expect(scan.json().code).toBe('VALIDATION_FAILED');
  });
});
