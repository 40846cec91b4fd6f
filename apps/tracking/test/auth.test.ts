import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenService } from '@wms/platform';
import { ADMIN, buildTestTracking, TEST_PASSWORD, testConfig, uniqueName, type TestTracking } from './helpers.js';

const trackingSecret = testConfig('memory://').jwtSecret;
const base64url = (value: object) => Buffer.from(JSON.stringify(value)).toString('base64url');

let t: TestTracking;
beforeAll(async () => {
  t = await buildTestTracking();
});
afterAll(() => t.close());

describe('tracking login', () => {
  it('logs a department account in and returns the token and the user, never the password', async () => {
    const res = await t.login(ADMIN.username, ADMIN.password);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(typeof body.token).toBe('string');
    expect(body.user).toMatchObject({ username: ADMIN.username, role: 'SUPER_ADMIN', department: 'ALPHA', active: true });
    expect(body.user.password_hash).toBeUndefined();
    expect(res.body).not.toContain('scrypt');
  });

  it('refuses a wrong password and an unknown user with 401', async () => {
    const wrong = await t.login(ADMIN.username, 'not-the-password');
    expect(wrong.statusCode).toBe(401);
    expect(wrong.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect(typeof wrong.json().msg).toBe('string');
    expect((await t.login('nobody-here', 'whatever-1')).statusCode).toBe(401);
  });

  it('refuses accounts of another department, or of none, with 401', async () => {
    for (const department of ['BETA', '', 'ALPHA-2']) {
      const username = uniqueName('other');
      await t.insertUser({ username, department });
      const res = await t.login(username, TEST_PASSWORD);
      expect(res.statusCode, department).toBe(401);
      expect(res.json().code).toBe('UNAUTHENTICATED');
    }
  });

  it('compares the department trimmed and upper-cased', async () => {
    const username = uniqueName('spaced');
    await t.insertUser({ username, department: ' alpha ' });
    expect((await t.login(username, TEST_PASSWORD)).statusCode).toBe(200);
  });

  it('refuses an inactive account with 401', async () => {
    const username = uniqueName('inactive');
    await t.insertUser({ username, department: 'ALPHA', active: false });
    const res = await t.login(username, TEST_PASSWORD);
    expect(res.statusCode).toBe(401);
    expect(res.json().code).toBe('UNAUTHENTICATED');
  });

  it('answers validation failures with 422 naming the field', async () => {
    const missing = await t.request('POST', '/api/v1/auth/login', { body: { username: 'admin' } });
    expect(missing.statusCode).toBe(422);
    expect(missing.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'password' });
    expect(typeof missing.json().msg).toBe('string');
    const wrongType = await t.request('POST', '/api/v1/auth/login', { body: { username: 123, password: 'x' } });
    expect(wrongType.statusCode).toBe(422);
    expect(wrongType.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'username' });
  });

  it('answers malformed JSON with 400', async () => {
    const res = await t.request('POST', '/api/v1/auth/login', {
      body: '{"username": "admin",',
      headers: { 'content-type': 'application/json' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });
});

describe('tracking tokens', () => {
  const meWith = (token: string) => t.request('GET', '/api/v1/auth/me', { token });
  const adminClaims = () => ({ sub: String(t.adminId), role: 'SUPER_ADMIN', company_name: 'ALPHA', name: '系统管理员' });

  it('accepts its own token', async () => {
    expect((await meWith(t.adminToken)).statusCode).toBe(200);
    const own = await createTokenService(trackingSecret, 'tracking').sign(adminClaims());
    expect((await meWith(own)).statusCode).toBe(200);
  });

  it('refuses a missing or malformed bearer token with 401', async () => {
    const none = await t.request('GET', '/api/v1/auth/me');
    expect(none.statusCode).toBe(401);
    expect(none.json()).toMatchObject({ code: 'UNAUTHENTICATED' });
    expect((await t.request('GET', '/api/v1/auth/me', { headers: { authorization: 'Basic abc' } })).statusCode).toBe(401);
    expect((await meWith('not.a.jwt')).statusCode).toBe(401);
  });

  it("refuses the inventory service's tokens: other secret, or other audience", async () => {
    const inventoryToken = await createTokenService('test-secret-for-inventory-0123456789', 'inventory').sign(adminClaims());
    expect((await meWith(inventoryToken)).statusCode).toBe(401);
    const sameSecretInventoryAudience = await createTokenService(trackingSecret, 'inventory').sign(adminClaims());
    expect((await meWith(sameSecretInventoryAudience)).statusCode).toBe(401);
    const otherSecretTrackingAudience = await createTokenService('test-secret-for-inventory-0123456789', 'tracking').sign(adminClaims());
    expect((await meWith(otherSecretTrackingAudience)).statusCode).toBe(401);
  });

  it('refuses tampered, expired and unsigned (alg none) tokens', async () => {
    const user = await t.user('OPERATOR');
    const [header, payload, signature] = user.token.split('.') as [string, string, string];
    const claims = JSON.parse(Buffer.from(payload, 'base64url').toString()) as Record<string, unknown>;
    const tampered = [header, base64url({ ...claims, sub: String(t.adminId), role: 'SUPER_ADMIN' }), signature].join('.');
    expect((await meWith(tampered)).statusCode).toBe(401);
    expect((await t.request('GET', '/api/v1/users', { token: tampered })).statusCode).toBe(401);

    const expired = await createTokenService(trackingSecret, 'tracking', -60).sign(adminClaims());
    const expiredRes = await meWith(expired);
    expect(expiredRes.statusCode).toBe(401);
    expect(expiredRes.json().code).toBe('UNAUTHENTICATED');

    const unsigned = [base64url({ alg: 'none', typ: 'JWT' }), base64url({ ...claims, sub: String(t.adminId), role: 'SUPER_ADMIN' }), ''].join('.');
    expect((await meWith(unsigned)).statusCode).toBe(401);
  });

  it('stops a token once its account is deactivated or leaves the department', async () => {
    const leaving = await t.user('ENGINEER');
    expect((await meWith(leaving.token)).statusCode).toBe(200);
    await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) =>
      tx.execute(sql`update users set department = 'BETA' where id = ${leaving.id}`),
    );
    expect((await meWith(leaving.token)).statusCode).toBe(401);

    const deactivated = await t.user('OPERATOR');
    const patch = await t.request('PATCH', `/api/v1/users/${deactivated.id}`, { token: t.adminToken, body: { active: false } });
    expect(patch.statusCode).toBe(200);
    expect((await meWith(deactivated.token)).statusCode).toBe(401);
  });
});
