import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { addMembers, createGroup, meScope } from './scope-fixtures.js';

/**
 * Spec §3 rule 1: a SUPER_ADMIN sees every phase and no group can override that. A member promoted to
 * SUPER_ADMIN keeps the membership row (the spec refuses only adding a super admin), so the rule has to
 * win over the group; a later demotion gives the group's scope back.
 */
describe('a group member promoted to SUPER_ADMIN', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking({ config: { dataScopeUngrouped: 'NONE' } });
  });
  afterAll(() => t.close());

  it('sees every phase and every group while promoted, and the group’s scope again once demoted', async () => {
    const user = await t.user('OPERATOR');
    const own = await createGroup(t, { phases: ['AFTER_SALES'] });
    const other = await createGroup(t, { phases: ['PRODUCTION'] });
    await addMembers(t, own.id, [user.id]);
    expect(await meScope(t, user.token)).toEqual({ phases: ['AFTER_SALES'], labels: { AFTER_SALES: '售后' }, unrestricted: false });

    const promote = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { role: 'SUPER_ADMIN' } });
    expect(promote.statusCode, promote.body).toBe(200);
    expect(await meScope(t, user.token)).toEqual({
      phases: ['PRODUCTION', 'AFTER_SALES'],
      labels: { PRODUCTION: '生产', AFTER_SALES: '售后' },
      unrestricted: true,
    });
    const groups = (await t.request('GET', '/api/v1/groups?limit=200', { token: user.token })).json() as { items: Array<{ id: number }> };
    expect(groups.items.map((group) => group.id)).toEqual(expect.arrayContaining([own.id, other.id]));
    expect((await t.request('GET', `/api/v1/groups/${other.id}`, { token: user.token })).statusCode).toBe(200);

    const demote = await t.request('PATCH', `/api/v1/users/${user.id}`, { token: t.adminToken, body: { role: 'ENGINEER' } });
    expect(demote.statusCode, demote.body).toBe(200);
    expect(await meScope(t, user.token)).toEqual({ phases: ['AFTER_SALES'], labels: { AFTER_SALES: '售后' }, unrestricted: false });
  });
});
