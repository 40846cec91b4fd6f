import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestInventory, type TestInventory } from './helpers.js';

describe('role permissions and the bridge', () => {
  let t: TestInventory;
  const setGrants = (role: string, permissions: string[]) =>
    t.request('PUT', `/api/v1/permissions/role/${role}`, { token: t.adminToken, body: { permissions } });

  beforeAll(async () => {
    t = await buildTestInventory();
  });
  afterAll(() => t.close());

  it('serves the default grants of contract §3', async () => {
    const sales = (await t.request('GET', '/api/v1/permissions/role/SALES', { token: t.adminToken })).json();
    expect(sales).toEqual({ role: 'SALES', permissions: ['op_borrow_apply', 'op_return:operation', 'outbound_selection'] });
    const supervisor = (await t.request('GET', '/api/v1/permissions/role/SUPERVISOR', { token: t.adminToken })).json();
    expect(supervisor.permissions).toContain('system_audit');
    expect(supervisor.permissions).not.toContain('crossDomain');
    expect(supervisor.permissions.some((code: string) => code.startsWith('system_user') || code.startsWith('system_permission'))).toBe(false);
  });

  it('gives SUPER_ADMIN every code and the material_list:* wildcard (spec 5.2), shown in /auth/me', async () => {
    const role = (await t.request('GET', '/api/v1/permissions/role/SUPER_ADMIN', { token: t.adminToken })).json();
    expect(role.permissions).toEqual(expect.arrayContaining(['material_list:*', 'crossDomain', 'system_permission:operation']));
    const me = (await t.request('GET', '/api/v1/auth/me', { token: t.adminToken })).json();
    expect(me.permissions).toEqual(expect.arrayContaining(['material_list:*', 'material_list:purchaseLink', 'crossDomain']));
  });

  it('serves the default grants of WAREHOUSE_MGR, INBOUND and OUTBOUND exactly as contract §3 lists them', async () => {
    const grants = async (role: string) => (await t.request('GET', `/api/v1/permissions/role/${role}`, { token: t.adminToken })).json().permissions;
    expect(await grants('WAREHOUSE_MGR')).toEqual([
      'material_list:*', 'bom_manage:*', 'inbound_buy', 'inbound_stock:operation', 'inbound_purchase:*', 'outbound_approval',
      'outbound_create:operation', 'outbound_selection', 'outbound_return', 'defective_list', 'defective_restock', 'defective_scrap',
      'stock_change_status', 'op_borrow_apply', 'op_borrow_approval', 'op_borrow_dispatch', 'op_return:operation',
      'scrap_create:operation', 'scrap_list', 'scrap_list:loss_amount', 'inventory_stocktake:operation', 'system_audit',
    ].sort());
    expect(await grants('INBOUND')).toEqual([
      'material_list:operation', 'inbound_buy', 'inbound_stock:operation', 'inventory_stocktake:operation', 'op_borrow_apply',
      'op_return:operation', 'scrap_apply',
    ].sort());
    expect(await grants('OUTBOUND')).toEqual([
      'outbound_selection', 'outbound_create:operation', 'outbound_return', 'op_borrow_apply', 'op_borrow_dispatch',
      'op_return:operation', 'inventory_stocktake:operation', 'scrap_apply',
    ].sort());
  });

  it('lets any caller read its own role, and only system_permission read others', async () => {
    const sales = await t.user('SALES', 'ALPHA');
    expect((await t.request('GET', '/api/v1/permissions/role/SALES', { token: sales.token })).statusCode).toBe(200);
    expect((await t.request('GET', '/api/v1/permissions/role/INBOUND', { token: sales.token })).statusCode).toBe(403);
    expect((await t.request('GET', '/api/v1/permissions/role/NOPE', { token: t.adminToken })).statusCode).toBe(404);
  });

  it('bridges X and X:operation in both directions', async () => {
    await setGrants('INBOUND', ['system_user']);
    const coarse = await t.user('INBOUND', 'ALPHA');
    // coarser grant satisfies the finer code (POST /users needs system_user:operation)
    const created = await t.request('POST', '/api/v1/users', {
      token: coarse.token,
      body: { username: 'by_coarse', password: 'secret-1', name: 'x', role: 'SALES' },
    });
    expect(created.statusCode).toBe(201);

    await setGrants('OUTBOUND', ['system_user:operation']);
    const fine = await t.user('OUTBOUND', 'ALPHA');
    // finer grant satisfies the coarser code (GET /users needs system_user)
    expect((await t.request('GET', '/api/v1/users', { token: fine.token })).statusCode).toBe(200);

    await setGrants('OUTBOUND', ['system_user:*']);
    expect((await t.request('GET', '/api/v1/users', { token: fine.token })).statusCode).toBe(200);

    await setGrants('OUTBOUND', ['system_audit']);
    expect((await t.request('GET', '/api/v1/users', { token: fine.token })).statusCode).toBe(403);
  });

  it('does not let module or operation grants stand in for field codes', async () => {
    await setGrants('SALES', ['material_list', 'material_list:operation']);
    const sales = await t.user('SALES', 'ALPHA');
    const permissions = (await t.request('GET', '/api/v1/auth/me', { token: sales.token })).json().permissions;
    expect(permissions).toContain('material_list:operation');
    expect(permissions).not.toContain('material_list:purchaseLink');
    expect(permissions).not.toContain('material_list:referencePrice');
  });

  it('keeps system_permission codes when an operator edits their own role', async () => {
    await setGrants('SUPERVISOR', ['system_permission', 'system_permission:operation', 'system_user']);
    const supervisor = await t.user('SUPERVISOR', 'ALPHA');
    const res = await t.request('PUT', '/api/v1/permissions/role/SUPERVISOR', { token: supervisor.token, body: { permissions: ['system_audit'] } });
    expect(res.statusCode).toBe(200);
    expect(res.json().permissions).toEqual(['system_audit', 'system_permission', 'system_permission:operation']);
    const stored = (await t.request('GET', '/api/v1/permissions/role/SUPERVISOR', { token: t.adminToken })).json();
    expect(stored.permissions).toEqual(['system_audit', 'system_permission', 'system_permission:operation']);
  });

  it('needs system_permission:operation to change grants and refuses unknown codes without writing', async () => {
    const sales = await t.user('SALES', 'BETA');
    expect((await t.request('PUT', '/api/v1/permissions/role/SALES', { token: sales.token, body: { permissions: [] } })).statusCode).toBe(403);
    const before = (await t.request('GET', '/api/v1/permissions/role/INBOUND', { token: t.adminToken })).json();
    const bad = await setGrants('INBOUND', ['material_list', 'fly_to_moon']);
    expect(bad.statusCode).toBe(400);
    expect(bad.json().unknown).toEqual(['fly_to_moon']);
    expect((await setGrants('INBOUND', 'all' as unknown as string[])).statusCode).toBe(400);
    expect((await t.request('GET', '/api/v1/permissions/role/INBOUND', { token: t.adminToken })).json()).toEqual(before);
  });

  it('names the permissions field when a grant is refused as unknown (contract §2: validation names the field)', async () => {
    const bad = await setGrants('SALES', ['outbound_selection', 'fly_to_moon']);
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'permissions', unknown: ['fly_to_moon'] });
    expect(typeof bad.json().msg).toBe('string');
  });

  it('lets crossDomain span companies and keeps everybody else in theirs', async () => {
    await setGrants('SUPERVISOR', ['system_user', 'crossDomain']);
    const cross = await t.user('SUPERVISOR', 'ALPHA');
    await t.user('SALES', 'BETA', { name: 'beta-person' });
    const users = (await t.request('GET', '/api/v1/common/active-users', { token: cross.token })).json();
    expect(users.map((u: { name: string }) => u.name)).toContain('beta-person');
    const narrowed = (await t.request('GET', '/api/v1/common/active-users?company=ALPHA', { token: cross.token })).json();
    expect(narrowed.map((u: { name: string }) => u.name)).not.toContain('beta-person');

    const plain = await t.user('SALES', 'ALPHA');
    const own = (await t.request('GET', '/api/v1/common/active-users?company=BETA', { token: plain.token })).json();
    expect(own.map((u: { name: string }) => u.name)).not.toContain('beta-person');
  });
});
