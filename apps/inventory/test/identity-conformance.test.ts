import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ADMIN, buildTestInventory, type TestInventory } from './helpers.js';

/** Identity rules checked against contract §3 beyond the module's own test files. */
describe('identity conformance', () => {
  let t: TestInventory;
  const setGrants = (role: string, permissions: string[]) =>
    t.request('PUT', `/api/v1/permissions/role/${role}`, { token: t.adminToken, body: { permissions } });
  const patchUser = (token: string, id: number, body: Record<string, unknown>) =>
    t.request('PATCH', `/api/v1/users/${id}`, { token, body });

  beforeAll(async () => {
    t = await buildTestInventory();
  });
  afterAll(() => t.close());

  it('accepts X:operation as a grant of a code that has no finer form, and it satisfies X (contract §3 bridge)', async () => {
    const granted = await setGrants('SALES', ['system_audit:operation', 'outbound_approval:operation']);
    expect(granted.statusCode, granted.body).toBe(200);
    expect(granted.json().permissions).toEqual(['outbound_approval:operation', 'system_audit:operation']);
    const sales = await t.user('SALES', 'ALPHA');
    expect((await t.request('GET', '/api/v1/audit/logs', { token: sales.token })).statusCode).toBe(200);
    const me = (await t.request('GET', '/api/v1/auth/me', { token: sales.token })).json();
    expect(me.permissions).toEqual(expect.arrayContaining(['system_audit', 'outbound_approval']));
    // a field-like suffix of such a code is still no known code
    expect((await setGrants('SALES', ['system_audit:export'])).statusCode).toBe(400);
  });

  it('refuses a username that differs from an existing one only in case (409), singly and in a batch', async () => {
    const existing = await t.user('SALES', 'ALPHA');
    const body = (username: string) => ({ username, password: 'secret-12', name: '大小写', role: 'SALES', company_name: 'ALPHA' });
    const single = await t.request('POST', '/api/v1/users', { token: t.adminToken, body: body(existing.username.toUpperCase()) });
    expect(single.statusCode).toBe(409);
    expect(single.json()).toMatchObject({ code: 'DUPLICATE' });
    const againstTable = await t.request('POST', '/api/v1/users/batch', {
      token: t.adminToken,
      body: { users: [body('case_fresh_1'), body(existing.username.toUpperCase())] },
    });
    expect(againstTable.statusCode).toBe(409);
    const inBatch = await t.request('POST', '/api/v1/users/batch', { token: t.adminToken, body: { users: [body('Case_Twin'), body('case_twin')] } });
    expect(inBatch.statusCode).toBe(409);
    expect(inBatch.json()).toMatchObject({ code: 'DUPLICATE', username: 'case_twin' });
    const listed = (await t.request('GET', '/api/v1/users?keyword=case_&limit=200', { token: t.adminToken })).json();
    expect(listed.total).toBe(0);
    // the original still logs in; a new distinct name is still fine
    expect((await t.login(existing.username, 'password-1')).statusCode).toBe(200);
    expect((await t.request('POST', '/api/v1/users', { token: t.adminToken, body: body('case_fresh_2') })).statusCode).toBe(201);
  });

  it('hashes a batch\'s passwords before its transaction, so other callers are not held up while it runs', async () => {
    const users = Array.from({ length: 100 }, (_, i) => ({ username: `bulk_${i}`, password: 'secret-12', name: `批量${i}`, role: 'SALES', company_name: 'ALPHA' }));
    const batch = t.request('POST', '/api/v1/users/batch', { token: t.adminToken, body: { users } });
    await new Promise((resolve) => setTimeout(resolve, 300));
    const asked = Date.now();
    expect((await t.request('GET', '/api/v1/auth/me', { token: t.adminToken })).statusCode).toBe(200);
    // 100 scrypt hashes take seconds; inside the transaction they held the PGlite connection that long
    expect(Date.now() - asked).toBeLessThan(1500);
    const created = await batch;
    expect(created.statusCode).toBe(201);
    expect(created.json().count).toBe(100);
    expect((await t.login('bulk_99', 'secret-12')).statusCode).toBe(200);
  });

  describe('the last active SUPER_ADMIN', () => {
    it('cannot demote itself while no other active SUPER_ADMIN remains, so user management is never lost', async () => {
      const demoted = await patchUser(t.adminToken, 1, { role: 'SUPERVISOR' });
      expect(demoted.statusCode).toBe(400);
      expect(demoted.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED' });
      const me = (await t.request('GET', '/api/v1/auth/me', { token: t.adminToken })).json();
      expect(me.role).toBe('SUPER_ADMIN');
    });

    it('may be demoted or deactivated once another active SUPER_ADMIN exists, never the last one', async () => {
      const second = await t.request('POST', '/api/v1/users', {
        token: t.adminToken,
        body: { username: 'second_admin', password: 'secret-12', name: '第二管理员', role: 'SUPER_ADMIN', company_name: 'ALPHA' },
      });
      expect(second.statusCode).toBe(201);
      const secondToken = (await t.login('second_admin', 'secret-12')).json().token as string;

      // two active: the first may step down to SUPERVISOR
      expect((await patchUser(t.adminToken, 1, { role: 'SUPERVISOR' })).statusCode).toBe(200);
      // the second is now the last one: it cannot step down
      expect((await patchUser(secondToken, second.json().id, { role: 'SALES' })).statusCode).toBe(400);
      // give the first its role back, then the second may be deactivated, but not the first afterwards
      expect((await patchUser(secondToken, 1, { role: 'SUPER_ADMIN' })).statusCode).toBe(200);
      expect((await patchUser(t.adminToken, second.json().id, { active: false })).statusCode).toBe(200);
      const refused = await patchUser(t.adminToken, 1, { role: 'INBOUND' });
      expect(refused.statusCode).toBe(400);
      expect((await t.login(ADMIN.username, ADMIN.password)).json().user.role).toBe('SUPER_ADMIN');
    });
  });
});
