import { beforeAll, describe, expect, it } from 'vitest';
import { readActorVersion } from '@wms/platform';
import { ACTOR_VERSION_SQL, createActorLoader } from '../src/modules/identity/actor-loader.js';
import type { StockRowJson, MaterialJson } from './fixtures.js';
import type { TestInventory } from './helpers.js';
import { materialWithStock, submit, submitOk, useOutboundWorld, type OutboundWorld, type RequestJson } from './outbound-fixtures.js';

let t: TestInventory;
let w: OutboundWorld;

useOutboundWorld((built) => ({ t, w } = built), { checkLedger: true });

/**
 * Actors are cached between requests (decisions: actor cache), and the hot routes confirm a cached
 * actor inside their own first round trip. Whatever the path, an account change counts on the very
 * next request.
 */
const scan = (token: string, barcode: string, requestId?: number) =>
  t.request('GET', `/api/v1/outbound/scan?barcode=${encodeURIComponent(barcode)}${requestId ? `&request_id=${requestId}` : ''}`, { token });
const patchUser = async (id: number, body: Record<string, unknown>) => {
  const response = await t.request('PATCH', `/api/v1/users/${id}`, { token: t.adminToken, body });
  expect(response.statusCode).toBe(200);
};
const rolePermissions = async (role: string): Promise<string[]> =>
  (await t.request('GET', `/api/v1/permissions/role/${role}`, { token: t.adminToken })).json().permissions;
const setRolePermissions = async (role: string, permissions: string[]) => {
  const response = await t.request('PUT', `/api/v1/permissions/role/${role}`, { token: t.adminToken, body: { permissions } });
  expect(response.statusCode).toBe(200);
};

describe('a cached actor on the hot routes', () => {
  let material: MaterialJson;
  let row: StockRowJson;
  let request: RequestJson;

  beforeAll(async () => {
    const made = await materialWithStock(t, 'ALPHA', [50]);
    material = made.material;
    row = made.rows[0]!;
    request = await submitOk(t, w.sales.token, [{ base_id: material.id, quantity: 1 }]);
  });

  it('stops a scanner whose account was deactivated on the next scan, and lets it back in once active', async () => {
    const scanner = await t.user('OUTBOUND', 'ALPHA');
    expect((await scan(scanner.token, row.sku, request.id)).statusCode).toBe(200);
    await patchUser(scanner.id, { active: false });
    expect((await scan(scanner.token, row.sku, request.id)).statusCode).toBe(401);
    await patchUser(scanner.id, { active: true });
    expect((await scan(scanner.token, row.sku, request.id)).statusCode).toBe(200);
  });

  it('applies a grant taken away from, or given back to, the role on the next scan', async () => {
    const scanner = await t.user('OUTBOUND', 'ALPHA');
    const granted = await rolePermissions('OUTBOUND');
    expect((await scan(scanner.token, row.sku, request.id)).statusCode).toBe(200);
    await setRolePermissions('OUTBOUND', granted.filter((code) => code !== 'outbound_create:operation'));
    expect((await scan(scanner.token, row.sku, request.id)).statusCode).toBe(403);
    await setRolePermissions('OUTBOUND', granted);
    expect((await scan(scanner.token, row.sku, request.id)).statusCode).toBe(200);
  });

  it('scans with the new company right after the account moved to another company', async () => {
    const scanner = await t.user('OUTBOUND', 'ALPHA');
    expect((await scan(scanner.token, row.sku)).statusCode).toBe(200);
    await patchUser(scanner.id, { company_name: 'BETA' });
    const moved = await scan(scanner.token, row.sku);
    expect(moved.statusCode).toBe(403);
    expect(moved.json()).toMatchObject({ code: 'OTHER_COMPANY', company: 'ALPHA' });
  });

  it('applies a role change to a submission at once, and writes nothing for the refused one', async () => {
    const applicant = await t.user('SALES', 'ALPHA');
    expect((await submit(t, applicant.token, { outbound_type: 'SALES', items: [{ base_id: material.id, quantity: 1 }] })).statusCode).toBe(201);
    await patchUser(applicant.id, { role: 'INBOUND' });
    const before = (await t.request('GET', '/api/v1/outbound/request?limit=200', { token: t.adminToken })).json().total;
    const refused = await submit(t, applicant.token, { outbound_type: 'SALES', items: [{ base_id: material.id, quantity: 1 }] });
    expect(refused.statusCode).toBe(403);
    expect((await t.request('GET', '/api/v1/outbound/request?limit=200', { token: t.adminToken })).json().total).toBe(before);
  });

  it('submits under the new company right after a move, never the cached one', async () => {
    const applicant = await t.user('SALES', 'ALPHA');
    expect((await submit(t, applicant.token, { outbound_type: 'SALES', items: [{ base_id: material.id, quantity: 1 }] })).statusCode).toBe(201);
    await patchUser(applicant.id, { company_name: 'BETA' });
    // ALPHA's material is not BETA's: the submission is refused as for any BETA user
    const refused = await submit(t, applicant.token, { outbound_type: 'SALES', items: [{ base_id: material.id, quantity: 1 }] });
    expect(refused.statusCode).toBe(404);
  });
});

describe('a cached actor on every other route', () => {
  it('shows a role change in /auth/me on the next request', async () => {
    const user = await t.user('SALES', 'ALPHA');
    const me = async () => (await t.request('GET', '/api/v1/auth/me', { token: user.token })).json();
    expect((await me()).role).toBe('SALES');
    await patchUser(user.id, { role: 'OUTBOUND' });
    const after = await me();
    expect(after.role).toBe('OUTBOUND');
    expect(after.permissions).toContain('outbound_create:operation');
  });

  it('refuses a deactivated account on the next request', async () => {
    const user = await t.user('SALES', 'ALPHA');
    expect((await t.request('GET', '/api/v1/auth/me', { token: user.token })).statusCode).toBe(200);
    await patchUser(user.id, { active: false });
    expect((await t.request('GET', '/api/v1/auth/me', { token: user.token })).statusCode).toBe(401);
  });
});

describe('the account version', () => {
  it('is the same when the actor is loaded and when it is read back, so a cached actor is not reloaded on every request', async () => {
    const user = await t.user('SALES', 'ALPHA');
    const { database } = t.service.deps;
    const loaded = await createActorLoader(database).load(user.id);
    expect(loaded?.version).toBeTruthy();
    expect(await database.read((q) => readActorVersion(q, ACTOR_VERSION_SQL, user.id))).toBe(loaded!.version);
  });
});
