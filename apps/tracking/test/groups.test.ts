import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { auditLogs, businessGroupMembers, businessGroups, products } from '../src/db/schema/index.js';
import { buildTestTracking, uniqueName, type TestTracking, type TestUser } from './helpers.js';
import { addMembers, createGroup, createProduct } from './scope-fixtures.js';

type Group = { id: number; can_manage_members: boolean; can_manage_group: boolean; is_my_leader: boolean; members?: Array<{ user_id: number; is_leader: boolean }> };

describe('business groups', () => {
  let t: TestTracking;
  let supervisor: TestUser;
  let engineer: TestUser;
  let leader: TestUser;
  let member: TestUser;
  let outsider: TestUser;
  let group: { id: number };

  const groupCount = async () => {
    const [row] = await t.service.deps.database.read((q) => q.select({ n: count() }).from(businessGroups));
    return row!.n;
  };
  const membersOf = async (groupId: number) =>
    (await t.service.deps.database.read((q) => q.select().from(businessGroupMembers).where(eq(businessGroupMembers.groupId, groupId))))
      .map((row) => row.userId)
      .sort((a, b) => a - b);
  const get = (url: string, token: string) => t.request('GET', `/api/v1${url}`, { token });

  beforeAll(async () => {
    t = await buildTestTracking();
    supervisor = await t.user('SUPERVISOR');
    engineer = await t.user('ENGINEER');
    leader = await t.user('ENGINEER', { name: '组长甲' });
    member = await t.user('OPERATOR', { name: '成员乙' });
    outsider = await t.user('OPERATOR');
    group = await createGroup(t, { name: '装配一组', phases: ['PRODUCTION'] });
    await addMembers(t, group.id, [leader.id, member.id, supervisor.id]);
    const promoted = await t.request('PATCH', `/api/v1/groups/${group.id}/members/${leader.id}`, { token: t.adminToken, body: { is_leader: true } });
    expect(promoted.statusCode).toBe(200);
    expect(promoted.json()).toMatchObject({ user_id: leader.id, is_leader: true, name: '组长甲' });
  });
  afterAll(() => t.close());

  describe('group management is SUPER_ADMIN only', () => {
    it('creates a group with its phases', async () => {
      const res = await t.request('POST', '/api/v1/groups', { token: t.adminToken, body: { name: ' 售后组 ', phases: ['AFTER_SALES', 'AFTER_SALES'] } });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toMatchObject({ name: '售后组', parent_id: null, active: true, phases: ['AFTER_SALES'], effective_phases: ['AFTER_SALES'], member_count: 0 });
      const [audit] = await t.service.deps.database.read((q) => q.select().from(auditLogs).where(eq(auditLogs.tableName, 'business_groups')));
      expect(audit).toMatchObject({ module: '业务组管理', action: 'CREATE', username: 'admin' });
    });

    it('refuses create, update and delete by anybody else with 403 and changes nothing', async () => {
      const before = await groupCount();
      for (const user of [supervisor, leader, engineer]) {
        const created = await t.request('POST', '/api/v1/groups', { token: user.token, body: { name: 'x' } });
        expect(created.statusCode).toBe(403);
        expect(created.json().msg).toBe('仅超级管理员可以执行此操作');
        const patch = await t.request('PATCH', `/api/v1/groups/${group.id}`, { token: user.token, body: { phases: ['PRODUCTION', 'AFTER_SALES'] } });
        expect(patch.statusCode).toBe(403);
        expect(patch.json().code).toBe('FORBIDDEN');
        expect((await t.request('DELETE', `/api/v1/groups/${group.id}`, { token: user.token })).statusCode).toBe(403);
      }
      expect(await groupCount()).toBe(before);
      const view = await get(`/groups/${group.id}`, t.adminToken);
      expect(view.json()).toMatchObject({ phases: ['PRODUCTION'], active: true });
    });

    it('keeps two levels: a sub-group’s parent must be a top-level group (422)', async () => {
      const parent = await createGroup(t, { phases: ['PRODUCTION'] });
      const sub = await createGroup(t, { parent_id: parent.id });
      const before = await groupCount();
      const third = await t.request('POST', '/api/v1/groups', { token: t.adminToken, body: { name: '第三级', parent_id: sub.id } });
      expect(third.statusCode).toBe(422);
      expect(third.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'parent_id' });
      const unknownParent = await t.request('POST', '/api/v1/groups', { token: t.adminToken, body: { name: 'x', parent_id: 999999 } });
      expect(unknownParent.statusCode).toBe(422);
      expect(await groupCount()).toBe(before);

      const parentUnderOther = await t.request('PATCH', `/api/v1/groups/${parent.id}`, { token: t.adminToken, body: { parent_id: group.id } });
      expect(parentUnderOther.statusCode).toBe(422);
      const self = await t.request('PATCH', `/api/v1/groups/${sub.id}`, { token: t.adminToken, body: { parent_id: sub.id } });
      expect(self.statusCode).toBe(422);
      const subView = await get(`/groups/${sub.id}`, t.adminToken);
      expect(subView.json()).toMatchObject({ parent_id: parent.id, phases: [], effective_phases: ['PRODUCTION'] });
    });

    it('answers bad input with 422 {msg, code}', async () => {
      for (const body of [{}, { name: '' }, { name: 'x', phases: ['SALES'] }, { name: 'x', active: 'yes' }, { name: 'x', parent_id: 'a' }]) {
        const res = await t.request('POST', '/api/v1/groups', { token: t.adminToken, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().code).toBe('VALIDATION_FAILED');
        expect(typeof res.json().msg).toBe('string');
      }
      expect((await t.request('PATCH', `/api/v1/groups/${group.id}`, { token: t.adminToken, body: {} })).statusCode).toBe(422);
      // unknown fields are dropped: a body of only those is as empty as {}
      const unknownOnly = await t.request('PATCH', `/api/v1/groups/${group.id}`, { token: t.adminToken, body: { leader_id: leader.id, colour: 'red' } });
      expect(unknownOnly.statusCode).toBe(422);
      expect(unknownOnly.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.stringContaining('没有需要修改的字段') });
      expect((await t.request('PATCH', '/api/v1/groups/999999', { token: t.adminToken, body: { name: 'x' } })).statusCode).toBe(404);
    });

    it('updates name, active and phases', async () => {
      const g = await createGroup(t, { phases: ['PRODUCTION'] });
      const res = await t.request('PATCH', `/api/v1/groups/${g.id}`, { token: t.adminToken, body: { name: '改名组', active: false, phases: ['AFTER_SALES'] } });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ name: '改名组', active: false, phases: ['AFTER_SALES'] });
    });

    it('refuses to delete a group with members (400) or sub-groups; deletes an empty one (204)', async () => {
      const before = await groupCount();
      const withMembers = await t.request('DELETE', `/api/v1/groups/${group.id}`, { token: t.adminToken });
      expect(withMembers.statusCode).toBe(400);
      expect(withMembers.json()).toMatchObject({ code: 'IN_USE' });
      expect(withMembers.json().msg).toContain('成员');
      const parent = await createGroup(t);
      await createGroup(t, { parent_id: parent.id });
      expect((await t.request('DELETE', `/api/v1/groups/${parent.id}`, { token: t.adminToken })).statusCode).toBe(400);
      expect(await groupCount()).toBe(before + 2);

      const empty = await createGroup(t, { phases: ['PRODUCTION'] });
      const product = await createProduct(t, { group_id: empty.id });
      const deleted = await t.request('DELETE', `/api/v1/groups/${empty.id}`, { token: t.adminToken });
      expect(deleted.statusCode).toBe(204);
      expect(deleted.body).toBe('');
      expect((await get(`/groups/${empty.id}`, t.adminToken)).statusCode).toBe(404);
      const [row] = await t.service.deps.database.read((q) => q.select().from(products).where(eq(products.id, product.id)));
      expect(row!.groupId).toBeNull();
      expect((await t.request('DELETE', `/api/v1/groups/${empty.id}`, { token: t.adminToken })).statusCode).toBe(404);
    });
  });

  describe('reading groups', () => {
    it('lists every group for the super admin and only own groups for others', async () => {
      const all = await get('/groups?limit=200', t.adminToken);
      expect(all.json().total).toBe(await groupCount());
      const mine = await get('/groups', member.token);
      expect(mine.json().items.map((g: Group) => g.id)).toEqual([group.id]);
      expect(mine.json().total).toBe(1);
      expect((await get('/groups', outsider.token)).json()).toMatchObject({ items: [], total: 0 });
    });

    it('shows a group with its members to its members, 403 to others, 404 when unknown', async () => {
      const own = await get(`/groups/${group.id}`, member.token);
      expect(own.statusCode).toBe(200);
      expect(own.json().members.map((m: { user_id: number }) => m.user_id).sort((a: number, b: number) => a - b)).toEqual(
        [leader.id, member.id, supervisor.id].sort((a, b) => a - b),
      );
      expect(own.json().members[0]).toMatchObject({ user_id: leader.id, is_leader: true });
      const other = await get(`/groups/${group.id}`, outsider.token);
      expect(other.statusCode).toBe(403);
      expect(other.json().code).toBe('FORBIDDEN');
      expect((await get(`/groups/${group.id}`, engineer.token)).statusCode).toBe(403);
      expect((await get('/groups/999999', t.adminToken)).statusCode).toBe(404);
    });

    it('computes can_manage_members, can_manage_group and is_my_leader for the caller', async () => {
      const flags = async (token: string) => {
        const detail = (await get(`/groups/${group.id}`, token)).json() as Group;
        const listed = ((await get('/groups?limit=200', token)).json().items as Group[]).find((g) => g.id === group.id)!;
        const pick = (g: Group) => ({ can_manage_members: g.can_manage_members, can_manage_group: g.can_manage_group, is_my_leader: g.is_my_leader });
        expect(pick(listed)).toEqual(pick(detail));
        return pick(detail);
      };
      expect(await flags(t.adminToken)).toEqual({ can_manage_members: true, can_manage_group: true, is_my_leader: false });
      expect(await flags(supervisor.token)).toEqual({ can_manage_members: true, can_manage_group: false, is_my_leader: false });
      expect(await flags(leader.token)).toEqual({ can_manage_members: true, can_manage_group: false, is_my_leader: true });
      expect(await flags(member.token)).toEqual({ can_manage_members: false, can_manage_group: false, is_my_leader: false });
    });
  });

  describe('members', () => {
    it('adds members, skipping those already in the group silently and naming them', async () => {
      const g = await createGroup(t);
      const a = await t.user('OPERATOR', { name: '甲' });
      const b = await t.user('OPERATOR', { name: '乙' });
      expect(await addMembers(t, g.id, [a.id])).toEqual({ added: [a.id], skipped: [], skipped_names: [] });
      const res = await t.request('POST', `/api/v1/groups/${g.id}/members`, { token: t.adminToken, body: { user_ids: [a.id, b.id, b.id] } });
      expect(res.statusCode).toBe(201);
      expect(res.json()).toEqual({ added: [b.id], skipped: [a.id], skipped_names: ['甲'] });
      expect(await membersOf(g.id)).toEqual([a.id, b.id].sort((x, y) => x - y));
    });

    it('lets a user be in several groups', async () => {
      const g = await createGroup(t);
      await addMembers(t, g.id, [member.id]);
      const mine = await get('/groups', member.token);
      expect(mine.json().items.map((x: Group) => x.id).sort()).toEqual([group.id, g.id].sort());
    });

    it('rejects the whole batch with 400 naming the super admins among the ids', async () => {
      const g = await createGroup(t);
      const secondAdmin = await t.user('SUPER_ADMIN', { name: '二号管理员' });
      const plain = await t.user('OPERATOR');
      const res = await t.request('POST', `/api/v1/groups/${g.id}/members`, { token: t.adminToken, body: { user_ids: [plain.id, t.adminId, secondAdmin.id] } });
      expect(res.statusCode).toBe(400);
      expect(res.json()).toMatchObject({ code: 'ROLE_NOT_ALLOWED', names: ['系统管理员', '二号管理员'] });
      expect(res.json().user_ids.sort()).toEqual([t.adminId, secondAdmin.id].sort());
      expect(res.json().msg).toContain('二号管理员');
      expect(await membersOf(g.id)).toEqual([]);

      // a deactivated super admin is refused as a super admin too, not as an unknown id
      const retired = await t.user('SUPER_ADMIN', { name: '停用管理员' });
      await t.request('PATCH', `/api/v1/users/${retired.id}`, { token: t.adminToken, body: { active: false } });
      const inactive = await t.request('POST', `/api/v1/groups/${g.id}/members`, { token: t.adminToken, body: { user_ids: [plain.id, retired.id] } });
      expect(inactive.statusCode).toBe(400);
      expect(inactive.json()).toMatchObject({ code: 'ROLE_NOT_ALLOWED', user_ids: [retired.id], names: ['停用管理员'] });
      expect(await membersOf(g.id)).toEqual([]);
    });

    it('answers an empty or malformed list with 422, and unknown, inactive or foreign users with 422, adding nobody', async () => {
      const g = await createGroup(t);
      for (const body of [{ user_ids: [] }, {}, { user_ids: 'all' }, { user_ids: [0] }, { user_ids: ['1'] }]) {
        const res = await t.request('POST', `/api/v1/groups/${g.id}/members`, { token: t.adminToken, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().code).toBe('VALIDATION_FAILED');
      }
      const inactive = await t.insertUser({ username: uniqueName('off'), department: 'ALPHA', active: false });
      const foreign = await t.insertUser({ username: uniqueName('beta'), department: 'BETA' });
      for (const bad of [999999, inactive, foreign]) {
        const res = await t.request('POST', `/api/v1/groups/${g.id}/members`, { token: t.adminToken, body: { user_ids: [outsider.id, bad] } });
        expect(res.statusCode).toBe(422);
        expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'user_ids', invalid_ids: [bad] });
      }
      expect(await membersOf(g.id)).toEqual([]);
      expect((await t.request('POST', '/api/v1/groups/999999/members', { token: t.adminToken, body: { user_ids: [outsider.id] } })).statusCode).toBe(404);
    });

    it('allows member changes to SUPER_ADMIN, any SUPERVISOR and the group’s leader; 403 for others', async () => {
      const g = await createGroup(t);
      const other = await createGroup(t);
      const otherLeader = await t.user('ENGINEER');
      await addMembers(t, other.id, [otherLeader.id]);
      await t.request('PATCH', `/api/v1/groups/${other.id}/members/${otherLeader.id}`, { token: t.adminToken, body: { is_leader: true } });
      const newcomer = await t.user('OPERATOR');
      const nonMemberSupervisor = await t.user('SUPERVISOR');

      // a leader of another group, a plain member, an engineer: 403, nothing written
      await addMembers(t, g.id, [member.id]);
      for (const user of [otherLeader, member, engineer]) {
        const add = await t.request('POST', `/api/v1/groups/${g.id}/members`, { token: user.token, body: { user_ids: [newcomer.id] } });
        expect(add.statusCode).toBe(403);
        expect(add.json().code).toBe('FORBIDDEN');
        expect((await t.request('PATCH', `/api/v1/groups/${g.id}/members/${member.id}`, { token: user.token, body: { is_leader: true } })).statusCode).toBe(403);
        expect((await t.request('DELETE', `/api/v1/groups/${g.id}/members/${member.id}`, { token: user.token })).statusCode).toBe(403);
      }
      expect(await membersOf(g.id)).toEqual([member.id]);

      // any supervisor, member or not
      expect((await addMembers(t, g.id, [newcomer.id], nonMemberSupervisor.token)).added).toEqual([newcomer.id]);
      const promote = await t.request('PATCH', `/api/v1/groups/${g.id}/members/${member.id}`, { token: nonMemberSupervisor.token, body: { is_leader: true } });
      expect(promote.json()).toMatchObject({ user_id: member.id, is_leader: true });

      // now the member leads g: may add, change leaders and remove there
      const third = await t.user('OPERATOR');
      expect((await addMembers(t, g.id, [third.id], member.token)).added).toEqual([third.id]);
      const co = await t.request('PATCH', `/api/v1/groups/${g.id}/members/${third.id}`, { token: member.token, body: { is_leader: true } });
      expect(co.statusCode).toBe(200);
      expect((await t.request('DELETE', `/api/v1/groups/${g.id}/members/${newcomer.id}`, { token: member.token })).statusCode).toBe(204);
      expect(await membersOf(g.id)).toEqual([member.id, third.id].sort((x, y) => x - y));
    });

    it('answers 404 for leader change or removal of a non-member, 422 for a bad body', async () => {
      expect((await t.request('PATCH', `/api/v1/groups/${group.id}/members/${outsider.id}`, { token: t.adminToken, body: { is_leader: true } })).statusCode).toBe(404);
      expect((await t.request('DELETE', `/api/v1/groups/${group.id}/members/${outsider.id}`, { token: t.adminToken })).statusCode).toBe(404);
      const bad = await t.request('PATCH', `/api/v1/groups/${group.id}/members/${member.id}`, { token: t.adminToken, body: { is_leader: 'yes' } });
      expect(bad.statusCode).toBe(422);
    });
  });

  describe('member candidates', () => {
    it('lists active department users without super admins, excluding current members with group_id', async () => {
      const inactive = await t.insertUser({ username: uniqueName('off'), department: 'ALPHA', active: false });
      const foreign = await t.insertUser({ username: uniqueName('beta'), department: 'BETA' });
      const all = await get('/groups/member-candidates', supervisor.token);
      expect(all.statusCode).toBe(200);
      const ids = (all.json() as Array<{ id: number; role: string }>).map((u) => u.id);
      expect(ids).toEqual(expect.arrayContaining([supervisor.id, engineer.id, leader.id, member.id, outsider.id]));
      expect(ids).not.toContain(t.adminId);
      expect(ids).not.toContain(inactive);
      expect(ids).not.toContain(foreign);
      expect((all.json() as Array<{ role: string }>).every((u) => u.role !== 'SUPER_ADMIN')).toBe(true);

      const forGroup = await get(`/groups/member-candidates?group_id=${group.id}`, leader.token);
      const groupIds = (forGroup.json() as Array<{ id: number }>).map((u) => u.id);
      expect(groupIds).toContain(outsider.id);
      for (const id of [leader.id, member.id, supervisor.id, t.adminId]) expect(groupIds).not.toContain(id);
      expect((await get('/groups/member-candidates?group_id=999999', t.adminToken)).statusCode).toBe(404);
      expect((await get('/groups/member-candidates?group_id=abc', t.adminToken)).statusCode).toBe(422);
    });
  });
});
