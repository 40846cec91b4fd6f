import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking } from './helpers.js';

const everything = { phases: ['PRODUCTION', 'AFTER_SALES'], labels: { PRODUCTION: '生产', AFTER_SALES: '售后' }, unrestricted: true };

async function meOf(t: TestTracking, token: string) {
  const res = await t.request('GET', '/api/v1/auth/me', { token });
  expect(res.statusCode).toBe(200);
  return res.json();
}

describe('GET /auth/me with DATA_SCOPE_UNGROUPED=ALL (default)', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('returns the user and an unrestricted scope for the super admin', async () => {
    const me = await meOf(t, t.adminToken);
    expect(me).toMatchObject({ id: t.adminId, username: 'admin', role: 'SUPER_ADMIN', department: 'ALPHA', active: true });
    expect(me.password_hash).toBeUndefined();
    expect(me.scope).toEqual(everything);
  });

  it('lets ungrouped supervisors, engineers and operators see everything', async () => {
    for (const role of ['SUPERVISOR', 'ENGINEER', 'OPERATOR']) {
      const user = await t.user(role);
      const me = await meOf(t, user.token);
      expect(me.role).toBe(role);
      expect(me.scope, role).toEqual(everything);
    }
  });
});

describe('GET /auth/me with DATA_SCOPE_UNGROUPED=NONE', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking({ config: { dataScopeUngrouped: 'NONE' } });
  });
  afterAll(() => t.close());

  it('keeps the super admin and ungrouped supervisors unrestricted', async () => {
    expect((await meOf(t, t.adminToken)).scope).toEqual(everything);
    const supervisor = await t.user('SUPERVISOR');
    expect((await meOf(t, supervisor.token)).scope).toEqual(everything);
  });

  it('shows ungrouped other users nothing: an empty, restricted scope', async () => {
    for (const role of ['ENGINEER', 'OPERATOR']) {
      const user = await t.user(role);
      expect((await meOf(t, user.token)).scope, role).toEqual({ phases: [], labels: {}, unrestricted: false });
    }
  });
});
