import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@wms/platform';
import { buildTestInventory, type TestInventory } from './helpers.js';

async function userCount(t: TestInventory): Promise<number> {
  const [row] = await t.service.deps.database.read((q) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from users`));
  return row!.n;
}

describe('user management', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory();
  });
  afterAll(() => t.close());

  it('creates users and lists them by company', async () => {
    const alpha = await t.user('SALES', 'ALPHA', { name: '张三' });
    await t.user('SALES', 'BETA', { name: '李四' });
    const all = (await t.request('GET', '/api/v1/users?limit=200', { token: t.adminToken })).json();
    expect(all.items.map((u: { company_name: string }) => u.company_name)).toEqual(expect.arrayContaining(['ALPHA', 'BETA']));
    const onlyAlpha = (await t.request('GET', '/api/v1/users?company=ALPHA&limit=200', { token: t.adminToken })).json();
    expect(onlyAlpha.items.every((u: { company_name: string }) => u.company_name === 'ALPHA')).toBe(true);
    expect(onlyAlpha.items.map((u: { id: number }) => u.id)).toContain(alpha.id);
  });

  it('requires a cross-domain creator to name the company', async () => {
    const before = await userCount(t);
    const res = await t.request('POST', '/api/v1/users', {
      token: t.adminToken,
      body: { username: 'nocompany', password: 'secret-1', name: 'x', role: 'SALES' },
    });
    expect(res.statusCode).toBe(400);
    expect(res.json().code).toBe('COMPANY_REQUIRED');
    expect(await userCount(t)).toBe(before);
  });

  it('creates a batch all or nothing', async () => {
    const before = await userCount(t);
    const ok = await t.request('POST', '/api/v1/users/batch', {
      token: t.adminToken,
      body: {
        users: [
          { username: 'batch_a', password: 'secret-1', name: 'A', role: 'INBOUND', company_name: 'ALPHA' },
          { username: 'batch_b', password: 'secret-1', name: 'B', role: 'OUTBOUND', company_name: 'ALPHA' },
        ],
      },
    });
    expect(ok.statusCode).toBe(201);
    expect(ok.json().count).toBe(2);
    expect(await userCount(t)).toBe(before + 2);

    const clash = await t.request('POST', '/api/v1/users/batch', {
      token: t.adminToken,
      body: {
        users: [
          { username: 'batch_c', password: 'secret-1', name: 'C', role: 'INBOUND', company_name: 'ALPHA' },
          { username: 'batch_a', password: 'secret-1', name: 'A again', role: 'INBOUND', company_name: 'ALPHA' },
        ],
      },
    });
    expect(clash.statusCode).toBe(409);
    expect(clash.json()).toMatchObject({ code: 'DUPLICATE', username: 'batch_a' });
    expect(await userCount(t)).toBe(before + 2);
  });

  it('rejects bad user input with 400 and writes nothing', async () => {
    const before = await userCount(t);
    const bodies = [
      { username: 'x', password: 'secret-1', name: 'n', role: 'SALES', company_name: 'ALPHA' },
      { username: 'good_name', password: '123', name: 'n', role: 'SALES', company_name: 'ALPHA' },
      { username: 'good_name', password: 'secret-1', name: 'n', role: 'KING', company_name: 'ALPHA' },
      { username: 'good_name', password: 'secret-1', name: 42, role: 'SALES', company_name: 'ALPHA' },
      { username: 'good_name', password: 'secret-1', name: '   ', role: 'SALES', company_name: 'ALPHA' },
      { username: 'good_name', password: 'secret-1', name: 'n', role: 'SALES', company_name: 'ALPHA', email: 'not-an-email' },
    ];
    for (const body of bodies) {
      const res = await t.request('POST', '/api/v1/users', { token: t.adminToken, body });
      expect(res.statusCode, JSON.stringify(body)).toBe(400);
      expect(res.json().code).toBe('VALIDATION_FAILED');
    }
    expect((await t.request('PATCH', '/api/v1/users/999999', { token: t.adminToken, body: { name: 'x' } })).statusCode).toBe(404);
    expect((await t.request('PATCH', '/api/v1/users/abc', { token: t.adminToken, body: { name: 'x' } })).statusCode).toBe(400);
    expect((await t.request('PATCH', '/api/v1/users/1', { token: t.adminToken, body: {} })).statusCode).toBe(400);
    expect(await userCount(t)).toBe(before);
  });

  it('needs system_user to list and system_user:operation to create', async () => {
    const sales = await t.user('SALES', 'ALPHA');
    expect((await t.request('GET', '/api/v1/users', { token: sales.token })).statusCode).toBe(403);
    const create = await t.request('POST', '/api/v1/users', {
      token: sales.token,
      body: { username: 'sneaky', password: 'secret-1', name: 'x', role: 'SALES' },
    });
    expect(create.statusCode).toBe(403);
    expect(create.json().code).toBe('FORBIDDEN');
  });

  it('keeps a company-bound user manager inside their company and away from SUPER_ADMIN', async () => {
    await t.request('PUT', '/api/v1/permissions/role/SUPERVISOR', {
      token: t.adminToken,
      body: { permissions: ['system_user', 'system_user:operation'] },
    });
    const manager = await t.user('SUPERVISOR', 'ALPHA');
    const beta = await t.user('SALES', 'BETA');
    const list = (await t.request('GET', '/api/v1/users?limit=200&company=BETA', { token: manager.token })).json();
    expect(list.items.every((u: { company_name: string }) => u.company_name === 'ALPHA')).toBe(true);
    expect((await t.request('PATCH', `/api/v1/users/${beta.id}`, { token: manager.token, body: { name: 'hijack' } })).statusCode).toBe(404);

    const created = await t.request('POST', '/api/v1/users', {
      token: manager.token,
      body: { username: 'made_by_mgr', password: 'secret-1', name: 'x', role: 'SALES', company_name: 'BETA' },
    });
    expect(created.statusCode).toBe(201);
    expect(created.json().company_name).toBe('ALPHA');

    const escalate = await t.request('POST', '/api/v1/users', {
      token: manager.token,
      body: { username: 'made_admin', password: 'secret-1', name: 'x', role: 'SUPER_ADMIN' },
    });
    expect(escalate.statusCode).toBe(403);
    expect((await t.request('PATCH', '/api/v1/users/1', { token: manager.token, body: { name: 'x' } })).statusCode).toBe(404);
  });

  it('refuses a company change by a company-bound manager, but takes the stored company sent back with a whole user form', async () => {
    await t.request('PUT', '/api/v1/permissions/role/SUPERVISOR', {
      token: t.adminToken,
      body: { permissions: ['system_user', 'system_user:operation'] },
    });
    const manager = await t.user('SUPERVISOR', 'ALPHA');
    const clerk = await t.user('INBOUND', 'ALPHA', { name: '入库员甲' });
    const headers = { 'content-type': 'application/json' };

    const moved = await t.request('PATCH', `/api/v1/users/${clerk.id}`, { token: manager.token, headers, body: { company_name: 'BETA' } });
    expect(moved.statusCode).toBe(403);
    expect(moved.json().code).toBe('FORBIDDEN');

    const listed = (await t.request('GET', '/api/v1/users?limit=200', { token: manager.token })).json();
    const form = listed.items.find((u: { id: number }) => u.id === clerk.id);
    expect(form).toMatchObject({ company_name: 'ALPHA', name: '入库员甲' });
    const saved = await t.request('PATCH', `/api/v1/users/${clerk.id}`, { token: manager.token, headers, body: { ...form, name: '入库员乙' } });
    expect(saved.statusCode).toBe(200);
    expect(saved.json()).toMatchObject({ id: clerk.id, name: '入库员乙', company_name: 'ALPHA' });
    const padded = await t.request('PATCH', `/api/v1/users/${clerk.id}`, { token: manager.token, headers, body: { company_name: ' ALPHA ' } });
    expect(padded.statusCode, padded.body).toBe(200);
  });

  it('trims a company named on PATCH as on create, and refuses a blank one', async () => {
    const clerk = await t.user('INBOUND', 'ALPHA');
    const moved = await t.request('PATCH', `/api/v1/users/${clerk.id}`, { token: t.adminToken, body: { company_name: ' BETA ' } });
    expect(moved.statusCode, moved.body).toBe(200);
    expect(moved.json().company_name).toBe('BETA');
    const blank = await t.request('PATCH', `/api/v1/users/${clerk.id}`, { token: t.adminToken, body: { company_name: '  ' } });
    expect(blank.statusCode).toBe(400);
    expect(blank.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'company_name' });
  });

  it('records an audit entry for user writes without the password hash', async () => {
    const user = await t.user('INBOUND', 'ALPHA');
    await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { name: '新名字', password: 'another-1' } });
    const rows = await t.service.deps.database.read((q) =>
      queryRows<{ action: string; username: string; details: unknown; request_url: string }>(q, sql`select action, username, details, request_url from audit_logs where table_name = 'users' and target_id = ${String(user.id)} order by id`),
    );
    expect(rows.map((r) => r.action)).toEqual(['CREATE', 'UPDATE']);
    expect(rows.every((r) => r.username === 'admin')).toBe(true);
    expect(rows[1]!.request_url).toBe(`/api/v1/users/${user.id}`);
    expect(JSON.stringify(rows)).not.toMatch(/scrypt|password_hash/);
  });

  it('writes nothing for a patch of unknown fields only (400) or of unchanged values (200, no audit record)', async () => {
    const user = await t.user('INBOUND', 'ALPHA', { name: '王五' });
    const auditCount = async () =>
      (await t.service.deps.database.read((q) =>
        queryRows<{ n: number }>(q, sql`select count(*)::int as n from audit_logs where table_name = 'users' and target_id = ${String(user.id)}`),
      ))[0]!.n;
    const before = await auditCount();
    const unknownOnly = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { foo: 1 } });
    expect(unknownOnly.statusCode).toBe(400);
    expect(unknownOnly.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'body' });
    const same = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { name: '王五', role: 'INBOUND', active: true } });
    expect(same.statusCode).toBe(200);
    expect(same.json()).toMatchObject({ id: user.id, name: '王五', role: 'INBOUND', active: true });
    expect(await auditCount()).toBe(before);
    const renamed = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { name: '王六', role: 'INBOUND' } });
    expect(renamed.json()).toMatchObject({ name: '王六' });
    expect(await auditCount()).toBe(before + 1);
  });
});
