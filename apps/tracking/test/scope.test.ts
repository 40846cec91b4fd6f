import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { UseCaseContext } from '@wms/platform';
import { createDataScopeResolver, decideDataScope } from '../src/modules/identity/data-scope.js';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { addMembers, createGroup, createProduct, createTask, groupedUser, meScope, setGroup } from './scope-fixtures.js';

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

describe('data scope from business groups (spec §3)', () => {
  let t: TestTracking;
  const production = { phases: ['PRODUCTION'], labels: { PRODUCTION: '生产' }, unrestricted: false };
  const afterSales = { phases: ['AFTER_SALES'], labels: { AFTER_SALES: '售后' }, unrestricted: false };

  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('gives a grouped user the union of the phases of their active groups, whatever their role', async () => {
    const supervisor = await groupedUser(t, 'SUPERVISOR', ['PRODUCTION']);
    expect(await meScope(t, supervisor.token)).toEqual(production);
    const other = await createGroup(t, { phases: ['AFTER_SALES'] });
    await addMembers(t, other.id, [supervisor.id]);
    expect(await meScope(t, supervisor.token)).toEqual({ ...everything, unrestricted: false });
  });

  it('shows nothing to a user whose only group has no phases', async () => {
    const user = await groupedUser(t, 'OPERATOR', []);
    expect(await meScope(t, user.token)).toEqual({ phases: [], labels: {}, unrestricted: false });
  });

  it('lets a sub-group without phases inherit its parent’s, and a sub-group with phases use its own', async () => {
    const parent = await createGroup(t, { phases: ['AFTER_SALES'] });
    const inheriting = await createGroup(t, { parent_id: parent.id });
    const own = await createGroup(t, { parent_id: parent.id, phases: ['PRODUCTION'] });
    const a = await t.user('OPERATOR');
    const b = await t.user('OPERATOR');
    await addMembers(t, inheriting.id, [a.id]);
    await addMembers(t, own.id, [b.id]);
    expect(await meScope(t, a.token)).toEqual(afterSales);
    expect(await meScope(t, b.token)).toEqual(production);
  });

  it('applies a deactivation at once: members fall back to the ungrouped rules, and back again', async () => {
    const user = await groupedUser(t, 'ENGINEER', ['AFTER_SALES']);
    const supervisor = await t.user('SUPERVISOR');
    await addMembers(t, user.groupId, [supervisor.id]);
    expect(await meScope(t, user.token)).toEqual(afterSales);
    expect(await meScope(t, supervisor.token)).toEqual(afterSales);
    await setGroup(t, user.groupId, { active: false });
    expect(await meScope(t, user.token)).toEqual(everything); // DATA_SCOPE_UNGROUPED=ALL
    expect(await meScope(t, supervisor.token)).toEqual(everything); // ungrouped SUPERVISOR
    await setGroup(t, user.groupId, { active: true });
    expect(await meScope(t, user.token)).toEqual(afterSales);
  });

  it('switches off a whole branch when the parent group is deactivated', async () => {
    const parent = await createGroup(t, { phases: ['PRODUCTION'] });
    const sub = await createGroup(t, { parent_id: parent.id });
    const user = await t.user('OPERATOR');
    await addMembers(t, sub.id, [user.id]);
    expect(await meScope(t, user.token)).toEqual(production);
    await setGroup(t, parent.id, { active: false });
    expect(await meScope(t, user.token)).toEqual(everything);
  });

  it('changes scope at once when phases change or the member leaves', async () => {
    const user = await groupedUser(t, 'OPERATOR', ['PRODUCTION']);
    await setGroup(t, user.groupId, { phases: ['AFTER_SALES'] });
    expect(await meScope(t, user.token)).toEqual(afterSales);
    const removed = await t.request('DELETE', `/api/v1/groups/${user.groupId}/members/${user.id}`, { token: t.adminToken });
    expect(removed.statusCode).toBe(204);
    expect(await meScope(t, user.token)).toEqual(everything);
  });
});

describe('scope filtering of the product and task lists', () => {
  let t: TestTracking;
  const productionIds: number[] = [];
  const afterSalesIds: number[] = [];

  async function pageThrough(url: string, token: string) {
    const ids: number[] = [];
    let total = -1;
    for (let page = 1; page <= 10; page++) {
      const res = await t.request('GET', `${url}${url.includes('?') ? '&' : '?'}limit=2&page=${page}`, { token });
      expect(res.statusCode, res.body).toBe(200);
      const body = res.json();
      total = body.total;
      ids.push(...body.items.map((item: { id: number }) => item.id));
      if (body.items.length < 2) break;
    }
    return { ids, total };
  }

  beforeAll(async () => {
    t = await buildTestTracking({ config: { dataScopeUngrouped: 'NONE' } });
    // interleaved, so a filter applied after paging would show short or empty pages
    for (let i = 0; i < 4; i++) {
      const p = await createProduct(t);
      productionIds.push(p.id);
      await createTask(t, { product_id: p.id, title: `生产任务 ${i}` });
      for (let j = 0; j < 2; j++) {
        const a = await createProduct(t, { lifecycle_phase: 'AFTER_SALES' });
        afterSalesIds.push(a.id);
        await createTask(t, { product_id: a.id, title: `售后任务 ${i}-${j}` });
      }
    }
  });
  afterAll(() => t.close());

  it('filters products before offset and limit: total and pages agree', async () => {
    const user = await groupedUser(t, 'OPERATOR', ['PRODUCTION']);
    const { ids, total } = await pageThrough('/api/v1/products', user.token);
    expect(total).toBe(productionIds.length);
    expect(ids.sort((x, y) => x - y)).toEqual(productionIds);
    const first = await t.request('GET', '/api/v1/products?limit=2', { token: user.token });
    expect(first.json().items).toHaveLength(2);
  });

  it('filters tasks through their product before paging', async () => {
    const user = await groupedUser(t, 'OPERATOR', ['AFTER_SALES']);
    const { ids, total } = await pageThrough('/api/v1/tasks', user.token);
    expect(total).toBe(afterSalesIds.length);
    expect(ids).toHaveLength(afterSalesIds.length);
    const titles = (await t.request('GET', '/api/v1/tasks?limit=200', { token: user.token })).json().items.map((task: { title: string }) => task.title);
    expect(titles.every((title: string) => title.startsWith('售后任务'))).toBe(true);
  });

  it('shows an empty scope nothing at all (NONE for an ungrouped operator)', async () => {
    const user = await t.user('OPERATOR');
    for (const url of ['/api/v1/products', '/api/v1/tasks']) {
      const res = await t.request('GET', url, { token: user.token });
      expect(res.json(), url).toMatchObject({ items: [], total: 0 });
    }
    const filtered = await t.request('GET', '/api/v1/products?lifecycle_phase=PRODUCTION', { token: user.token });
    expect(filtered.json().total).toBe(0);
  });

  it('leaves the super admin and an ungrouped supervisor unrestricted', async () => {
    const everythingCount = productionIds.length + afterSalesIds.length;
    expect((await t.request('GET', '/api/v1/products', { token: t.adminToken })).json().total).toBe(everythingCount);
    const supervisor = await t.user('SUPERVISOR');
    expect((await t.request('GET', '/api/v1/products', { token: supervisor.token })).json().total).toBe(everythingCount);
    expect((await t.request('GET', '/api/v1/tasks', { token: supervisor.token })).json().total).toBe(everythingCount);
  });

  it('a user with both phases through groups sees everything but stays restricted', async () => {
    const user = await groupedUser(t, 'OPERATOR', ['PRODUCTION', 'AFTER_SALES']);
    expect(await meScope(t, user.token)).toMatchObject({ phases: ['PRODUCTION', 'AFTER_SALES'], unrestricted: false });
    expect((await t.request('GET', '/api/v1/products', { token: user.token })).json().total).toBe(productionIds.length + afterSalesIds.length);
  });
});

describe('the scope decision and the ALL fallback warning', () => {
  const ctxOf = (id: number, username: string, role: string) =>
    ({ actor: { id, username, role }, read: (fn: (q: unknown) => unknown) => fn(undefined) }) as unknown as UseCaseContext;

  it('warns naming the ungrouped user under ALL, once per user; never under NONE or for others', async () => {
    const warnings: string[] = [];
    const all = createDataScopeResolver({ ungrouped: 'ALL', loadGroupPhases: async () => null, warn: (m) => warnings.push(m) });
    expect(await all.scopeOf(ctxOf(7, 'zhang.san', 'OPERATOR'))).toEqual({ phases: ['PRODUCTION', 'AFTER_SALES'], unrestricted: true });
    await all.scopeOf(ctxOf(7, 'zhang.san', 'OPERATOR'));
    await all.scopeOf(ctxOf(8, 'boss', 'SUPERVISOR'));
    expect(warnings).toHaveLength(1);
    expect(warnings[0]).toContain('zhang.san');

    const none = createDataScopeResolver({ ungrouped: 'NONE', loadGroupPhases: async () => null, warn: (m) => warnings.push(m) });
    expect(await none.scopeOf(ctxOf(9, 'li.si', 'ENGINEER'))).toEqual({ phases: [], unrestricted: false });
    expect(warnings).toHaveLength(1);
  });

  it('never lets a group override the super admin', () => {
    expect(decideDataScope('SUPER_ADMIN', ['PRODUCTION'], 'NONE')).toMatchObject({ rule: 'super_admin', scope: { unrestricted: true } });
    expect(decideDataScope('SUPERVISOR', [], 'ALL')).toMatchObject({ rule: 'groups', scope: { phases: [], unrestricted: false } });
  });
});
