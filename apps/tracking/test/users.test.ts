import { and, count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, users } from '../src/db/schema/index.js';
import { buildTestTracking, TEST_PASSWORD, uniqueName, type TestTracking, type TestUser } from './helpers.js';

describe('tracking user management', () => {
  let t: TestTracking;
  let supervisor: TestUser;
  let otherDepartmentId: number;

  const userCount = async () => {
    const [row] = await t.service.deps.database.read((q) => q.select({ n: count() }).from(users));
    return row!.n;
  };

  beforeAll(async () => {
    t = await buildTestTracking();
    supervisor = await t.user('SUPERVISOR');
    otherDepartmentId = await t.insertUser({ username: uniqueName('beta'), department: 'BETA' });
  });
  afterAll(() => t.close());

  it('lets only the super admin manage users (403 for others)', async () => {
    const list = await t.request('GET', '/api/v1/users', { token: supervisor.token });
    expect(list.statusCode).toBe(403);
    expect(list.json()).toMatchObject({ code: 'FORBIDDEN' });
    const before = await userCount();
    const create = await t.request('POST', '/api/v1/users', {
      token: supervisor.token,
      body: { username: uniqueName('x'), password: TEST_PASSWORD, name: 'X', role: 'OPERATOR' },
    });
    expect(create.statusCode).toBe(403);
    expect(await userCount()).toBe(before);
    const patch = await t.request('PATCH', `/api/v1/users/${supervisor.id}`, { token: supervisor.token, body: { role: 'SUPER_ADMIN' } });
    expect(patch.statusCode).toBe(403);
    expect((await t.request('GET', '/api/v1/users', { token: t.adminToken })).statusCode).toBe(200);
  });

  it('creates accounts in the department whatever the body says', async () => {
    const username = uniqueName('new');
    const res = await t.request('POST', '/api/v1/users', {
      token: t.adminToken,
      body: { username, password: TEST_PASSWORD, name: '新用户', role: 'ENGINEER', department: 'BETA' },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ username, name: '新用户', role: 'ENGINEER', department: 'ALPHA', active: true });
    expect(res.json().password).toBeUndefined();
    expect((await t.login(username, TEST_PASSWORD)).statusCode).toBe(200);
  });

  it('refuses a duplicate username with 409 and writes nothing', async () => {
    const before = await userCount();
    const res = await t.request('POST', '/api/v1/users', {
      token: t.adminToken,
      body: { username: supervisor.username, password: TEST_PASSWORD, name: 'Dup', role: 'OPERATOR' },
    });
    expect(res.statusCode).toBe(409);
    expect(res.json()).toMatchObject({ code: 'DUPLICATE' });
    // the same name in other letter case is the same person to the login throttle (decisions, Identity 3)
    const shouted = await t.request('POST', '/api/v1/users', {
      token: t.adminToken,
      body: { username: supervisor.username.toUpperCase(), password: TEST_PASSWORD, name: 'Dup', role: 'OPERATOR' },
    });
    expect(shouted.statusCode).toBe(409);
    expect(shouted.json()).toMatchObject({ code: 'DUPLICATE' });
    expect(await userCount()).toBe(before);
  });

  it('answers bad input with 422 and writes nothing', async () => {
    const before = await userCount();
    const bodies = [
      { username: uniqueName('r'), password: TEST_PASSWORD, name: 'R', role: 'KING' },
      { username: uniqueName('p'), password: '123', name: 'P', role: 'OPERATOR' },
      { username: 'bad name!', password: TEST_PASSWORD, name: 'B', role: 'OPERATOR' },
      { username: uniqueName('m'), password: TEST_PASSWORD, role: 'OPERATOR' },
      { username: uniqueName('s'), password: TEST_PASSWORD, name: '  ', role: 'OPERATOR' },
      { username: uniqueName('a'), password: TEST_PASSWORD, name: 'A', role: 'OPERATOR', active: 'yes' },
    ];
    for (const body of bodies) {
      const res = await t.request('POST', '/api/v1/users', { token: t.adminToken, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(422);
      expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
      expect(typeof res.json().msg).toBe('string');
    }
    expect(await userCount()).toBe(before);
    const emptyPatch = await t.request('PATCH', `/api/v1/users/${supervisor.id}`, { token: t.adminToken, body: {} });
    expect(emptyPatch.statusCode).toBe(422);
    const badId = await t.request('PATCH', '/api/v1/users/abc', { token: t.adminToken, body: { name: 'x' } });
    expect(badId.statusCode).toBe(422);
    expect(badId.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('lists only accounts of the department, paged', async () => {
    const res = await t.request('GET', '/api/v1/users?limit=200', { token: t.adminToken });
    expect(res.statusCode).toBe(200);
    const page = res.json();
    expect(page).toMatchObject({ page: 1, limit: 200 });
    const ids = (page.items as Array<{ id: number; department: string }>).map((u) => u.id);
    expect(ids).toContain(t.adminId);
    expect(ids).toContain(supervisor.id);
    expect(ids).not.toContain(otherDepartmentId);
    expect(page.total).toBe(page.items.length);
    for (const item of page.items) expect(item.password_hash).toBeUndefined();

    const filtered = await t.request('GET', `/api/v1/users?role=SUPERVISOR&keyword=${supervisor.username}`, { token: t.adminToken });
    expect(filtered.json().items.map((u: { id: number }) => u.id)).toEqual([supervisor.id]);
  });

  it('shows one department account to the super admin (contract §6): 404 for another department or unknown, 403 for others', async () => {
    const res = await t.request('GET', `/api/v1/users/${supervisor.id}`, { token: t.adminToken });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: supervisor.id, username: supervisor.username, role: 'SUPERVISOR', department: 'ALPHA', active: true });
    expect(res.json().password_hash).toBeUndefined();
    expect(res.json().password).toBeUndefined();
    for (const id of [otherDepartmentId, 999999]) {
      const missing = await t.request('GET', `/api/v1/users/${id}`, { token: t.adminToken });
      expect(missing.statusCode).toBe(404);
      expect(missing.json()).toMatchObject({ code: 'NOT_FOUND', msg: expect.any(String) });
    }
    expect((await t.request('GET', `/api/v1/users/${supervisor.id}`, { token: supervisor.token })).statusCode).toBe(403);
    expect((await t.request('GET', '/api/v1/users/abc', { token: t.adminToken })).statusCode).toBe(422);
  });

  it('edits name, role, password and active of a department account', async () => {
    const user = await t.user('OPERATOR');
    const res = await t.request('PATCH', `/api/v1/users/${user.id}`, {
      token: t.adminToken,
      body: { name: '改名', role: 'ENGINEER', password: 'new-password-9' },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: user.id, name: '改名', role: 'ENGINEER', department: 'ALPHA' });
    expect((await t.login(user.username, TEST_PASSWORD)).statusCode).toBe(401);
    expect((await t.login(user.username, 'new-password-9')).statusCode).toBe(200);

    const off = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { active: false } });
    expect(off.json().active).toBe(false);
    expect((await t.login(user.username, 'new-password-9')).statusCode).toBe(401);
  });

  it('answers 404 for unknown accounts and accounts of another department, and leaves them alone', async () => {
    expect((await t.request('PATCH', '/api/v1/users/999999', { token: t.adminToken, body: { name: 'x' } })).statusCode).toBe(404);
    const other = await t.request('PATCH', `/api/v1/users/${otherDepartmentId}`, { token: t.adminToken, body: { name: 'x', active: false } });
    expect(other.statusCode).toBe(404);
    expect(other.json()).toMatchObject({ code: 'NOT_FOUND' });
    const [row] = await t.service.deps.database.read((q) => q.select().from(users).where(eq(users.id, otherDepartmentId)));
    expect(row).toMatchObject({ active: true, department: 'BETA' });
  });

  it('does not let the super admin deactivate or demote their own account', async () => {
    const off = await t.request('PATCH', `/api/v1/users/${t.adminId}`, { token: t.adminToken, body: { active: false } });
    expect(off.statusCode).toBe(400);
    expect(off.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED' });
    const demote = await t.request('PATCH', `/api/v1/users/${t.adminId}`, { token: t.adminToken, body: { role: 'OPERATOR' } });
    expect(demote.statusCode).toBe(400);
    const me = await t.request('GET', '/api/v1/auth/me', { token: t.adminToken });
    expect(me.json()).toMatchObject({ role: 'SUPER_ADMIN', active: true });
  });

  it('audits user writes under the acting account, without credentials', async () => {
    const username = uniqueName('audited');
    const created = await t.request('POST', '/api/v1/users', {
      token: t.adminToken,
      body: { username, password: TEST_PASSWORD, name: 'A', role: 'OPERATOR' },
    });
    expect(created.statusCode).toBe(201);
    const rows = await t.service.deps.database.read((q) =>
      q.select().from(auditLogs).where(eq(auditLogs.targetId, String(created.json().id))),
    );
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ module: '用户管理', action: 'CREATE', targetName: username, username: 'admin', department: 'ALPHA' });
    expect(JSON.stringify(rows[0]!.details)).not.toContain('password');
    expect(rows[0]!.requestUrl).toBe('/api/v1/users');
  });

  it('writes nothing for a patch of unknown fields only (422) or of unchanged values (200, no audit record)', async () => {
    const user = await t.user('OPERATOR');
    const auditCount = async () =>
      (await t.service.deps.database.read((q) =>
        q.select({ n: count() }).from(auditLogs).where(and(eq(auditLogs.tableName, 'users'), eq(auditLogs.targetId, String(user.id)))),
      ))[0]!.n;
    const before = await auditCount();
    const unknownOnly = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { team: 'X' } });
    expect(unknownOnly.statusCode).toBe(422);
    expect(unknownOnly.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'body' });
    const elsewhere = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { department: 'BETA' } });
    expect(elsewhere.statusCode).toBe(422);
    expect(elsewhere.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'department' });
    expect((await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { department: ' alpha ' } })).statusCode).toBe(200);
    const current = (await t.request('GET', `/api/v1/users/${user.id}`, { token: t.adminToken })).json();
    const same = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { name: current.name, role: 'OPERATOR', active: true } });
    expect(same.statusCode).toBe(200);
    expect(await auditCount()).toBe(before);
    const renamed = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { name: '新名' } });
    expect(renamed.json()).toMatchObject({ name: '新名' });
    expect(await auditCount()).toBe(before + 1);
  });
});
