import { SignJWT } from 'jose';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTokenService } from '@wms/platform';
import { ADMIN, buildTestInventory, testConfig, type TestInventory } from './helpers.js';

const me = (t: TestInventory, token: string) => t.request('GET', '/api/v1/auth/me', { token });

describe('login and tokens', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory();
  });
  afterAll(() => t.close());

  it('logs in with the right password and returns a token and the user without its hash', async () => {
    const res = await t.login(ADMIN.username, ADMIN.password);
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(body.token).toMatch(/^ey/);
    expect(body.user).toMatchObject({ username: 'admin', role: 'SUPER_ADMIN', active: true });
    expect(JSON.stringify(body)).not.toMatch(/password|scrypt/);
  });

  it('signs an HS256 token for 12 hours with sub, role, company_name, name and the inventory audience (contract §3)', async () => {
    const user = await t.user('SALES', 'ALPHA', { name: '令牌用户' });
    const [header, payload] = user.token.split('.').slice(0, 2).map((part) => JSON.parse(Buffer.from(part, 'base64url').toString()) as Record<string, unknown>);
    expect(header).toMatchObject({ alg: 'HS256' });
    expect(payload).toMatchObject({ sub: String(user.id), role: 'SALES', company_name: 'ALPHA', name: '令牌用户', aud: 'inventory' });
    expect(Number(payload!.exp) - Number(payload!.iat)).toBe(12 * 3600);
  });

  it('refuses a wrong password and an unknown user with the same 401', async () => {
    const wrong = await t.login(ADMIN.username, 'nope-nope');
    const unknown = await t.login('nobody', 'nope-nope');
    expect(wrong.statusCode).toBe(401);
    expect(unknown.statusCode).toBe(401);
    expect(wrong.json()).toEqual(unknown.json());
    expect(wrong.json().code).toBe('UNAUTHENTICATED');
  });

  it('rejects a login body of the wrong shape with 400 naming the field', async () => {
    const res = await t.request('POST', '/api/v1/auth/login', { body: { username: 'admin' } });
    expect(res.statusCode).toBe(400);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
    expect(res.json().msg).toContain('password');
    const malformed = await t.request('POST', '/api/v1/auth/login', {
      body: '{"username": "admin",',
      headers: { 'content-type': 'application/json' },
    });
    expect(malformed.statusCode).toBe(400);
    expect(malformed.json().code).toBe('VALIDATION_FAILED');
  });

  it('answers 401 for a missing, malformed, tampered, expired, alg:none or foreign-service token', async () => {
    expect((await t.request('GET', '/api/v1/auth/me')).statusCode).toBe(401);
    expect((await t.request('GET', '/api/v1/auth/me', { headers: { authorization: 'Basic abc' } })).statusCode).toBe(401);

    const [header, payload, signature] = t.adminToken.split('.');
    const claims = JSON.parse(Buffer.from(payload!, 'base64url').toString());
    const forged = Buffer.from(JSON.stringify({ ...claims, sub: '2' })).toString('base64url');
    expect((await me(t, `${header}.${forged}.${signature}`)).statusCode).toBe(401);

    const noneHeader = Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url');
    expect((await me(t, `${noneHeader}.${payload}.`)).statusCode).toBe(401);

    const secret = new TextEncoder().encode(testConfig('memory://').jwtSecret);
    const expired = await new SignJWT({ role: 'SUPER_ADMIN', company_name: null, name: 'x' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('1')
      .setAudience('inventory')
      .setIssuedAt(Math.floor(Date.now() / 1000) - 7200)
      .setExpirationTime(Math.floor(Date.now() / 1000) - 3600)
      .sign(secret);
    const expiredRes = await me(t, expired);
    expect(expiredRes.statusCode).toBe(401);
    expect(expiredRes.json().msg).toContain('过期');

    const trackingToken = await createTokenService(testConfig('memory://').jwtSecret, 'tracking').sign({
      sub: '1',
      role: 'SUPER_ADMIN',
      company_name: null,
      name: 'x',
    });
    expect((await me(t, trackingToken)).statusCode).toBe(401);
  });

  it('refuses an inactive user at login, and their existing token stops working at once', async () => {
    const user = await t.user('SALES', 'ALPHA');
    expect((await me(t, user.token)).statusCode).toBe(200);
    const off = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { active: false } });
    expect(off.statusCode).toBe(200);
    expect((await me(t, user.token)).statusCode).toBe(401);
    expect((await t.login(user.username, 'password-1')).statusCode).toBe(401);
  });

  it('shows the caller its effective permissions through the bridge', async () => {
    const warehouse = await t.user('WAREHOUSE_MGR', 'ALPHA');
    const body = (await me(t, warehouse.token)).json();
    expect(body.company_name).toBe('ALPHA');
    // material_list:* covers the field codes; scrap_create:operation grants scrap_apply and scrap_execute
    expect(body.permissions).toEqual(expect.arrayContaining(['material_list:*', 'material_list:purchaseLink', 'scrap_apply', 'scrap_execute', 'outbound_create']));
    expect(body.permissions).not.toContain('crossDomain');
  });

  it('refuses a user with no company to see anything company-scoped', async () => {
    const user = await t.user('SALES', 'ALPHA');
    await t.service.deps.database.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`update users set company_name = null where id = ${user.id}`),
    );
    const res = await t.request('GET', '/api/v1/common/active-users', { token: user.token });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual([]);
  });
});
