import { and, eq, inArray } from 'drizzle-orm';
import { AppError, notFound, validationFailed, type Tx, type UseCaseContext } from '@wms/platform';
import { businessGroupMembers, businessGroups, users } from '../../db/schema/index.js';
import { inDepartment } from '../identity/department.js';
import { assertMayManageMembers } from './group-permissions.js';
import type { AddMembersResult, MemberView, UpdateMemberBody } from './schemas.js';

/**
 * Locks the group (member changes of one group run one at a time, and a delete sees a settled member
 * count), then checks the caller may manage its members: SUPER_ADMIN, SUPERVISOR or its leader (403).
 */
async function openGroupForMembers(tx: Tx, ctx: UseCaseContext, groupId: number): Promise<void> {
  const [group] = await tx.select({ id: businessGroups.id }).from(businessGroups).where(eq(businessGroups.id, groupId)).for('update');
  if (!group) throw notFound('业务组');
  await assertMayManageMembers(tx, ctx.actor, groupId);
}

/**
 * POST /groups/{id}/members, all or nothing: a super admin among the ids rejects the whole batch
 * (400 ROLE_NOT_ALLOWED naming them); an id that is no active account of the department is 422.
 * Users already in the group are skipped silently and named in the answer.
 */
export async function addMembers(ctx: UseCaseContext, groupId: number, userIds: number[]): Promise<AddMembersResult> {
  const wanted = [...new Set(userIds)];
  return ctx.transaction(async (tx) => {
    await openGroupForMembers(tx, ctx, groupId);
    // inactive accounts are read too: a super admin among the ids is refused as one, active or not
    const accounts = await tx
      .select({ id: users.id, name: users.name, role: users.role, active: users.active })
      .from(users)
      .where(and(inArray(users.id, wanted), inDepartment(users.department, ctx.actor.company ?? '')));
    const found = accounts.filter((user) => user.active);
    const superAdmins = wanted.flatMap((id) => accounts.filter((user) => user.id === id && user.role === 'SUPER_ADMIN'));
    if (superAdmins.length) {
      const names = superAdmins.map((user) => user.name);
      throw new AppError('ROLE_NOT_ALLOWED', `超级管理员不能加入业务组：${names.join('、')}`, {
        user_ids: superAdmins.map((user) => user.id),
        names,
      });
    }
    const unknown = wanted.filter((id) => !found.some((user) => user.id === id));
    if (unknown.length) {
      throw validationFailed(`用户不存在、已停用或不属于本部门：${unknown.join(', ')}`, { field: 'user_ids', invalid_ids: unknown });
    }
    const inserted = await tx
      .insert(businessGroupMembers)
      .values(wanted.map((userId) => ({ groupId, userId, createdAt: ctx.now })))
      .onConflictDoNothing({ target: [businessGroupMembers.groupId, businessGroupMembers.userId] })
      .returning({ userId: businessGroupMembers.userId });
    const added = wanted.filter((id) => inserted.some((row) => row.userId === id));
    const skipped = wanted.filter((id) => !added.includes(id));
    const skippedNames = skipped.map((id) => found.find((user) => user.id === id)!.name);
    return { added, skipped, skipped_names: skippedNames };
  });
}

async function memberViewOf(tx: Tx, groupId: number, userId: number): Promise<MemberView> {
  const [row] = await tx
    .select({ member: businessGroupMembers, user: { username: users.username, name: users.name, role: users.role, active: users.active } })
    .from(businessGroupMembers)
    .innerJoin(users, eq(users.id, businessGroupMembers.userId))
    .where(and(eq(businessGroupMembers.groupId, groupId), eq(businessGroupMembers.userId, userId)));
  if (!row) throw notFound('组成员');
  return {
    user_id: row.member.userId,
    username: row.user.username,
    name: row.user.name,
    role: row.user.role,
    active: row.user.active,
    is_leader: row.member.isLeader,
    joined_at: row.member.createdAt.toISOString(),
  };
}

/** PATCH /groups/{id}/members/{user_id}: sets or clears the leader flag (a group may have several leaders). */
export async function setLeader(ctx: UseCaseContext, groupId: number, userId: number, input: UpdateMemberBody): Promise<MemberView> {
  return ctx.transaction(async (tx) => {
    await openGroupForMembers(tx, ctx, groupId);
    const member = memberOf(groupId, userId);
    const [current] = await tx.select().from(businessGroupMembers).where(member);
    if (!current) throw notFound('组成员');
    if (current.isLeader !== input.is_leader) await tx.update(businessGroupMembers).set({ isLeader: input.is_leader }).where(member);
    return memberViewOf(tx, groupId, userId);
  });
}

/** DELETE /groups/{id}/members/{user_id}: 404 when the user is not a member. */
export async function removeMember(ctx: UseCaseContext, groupId: number, userId: number): Promise<void> {
  await ctx.transaction(async (tx) => {
    await openGroupForMembers(tx, ctx, groupId);
    const removed = await tx.delete(businessGroupMembers).where(memberOf(groupId, userId)).returning({ id: businessGroupMembers.id });
    if (removed.length === 0) throw notFound('组成员');
  });
}

function memberOf(groupId: number, userId: number) {
  return and(eq(businessGroupMembers.groupId, groupId), eq(businessGroupMembers.userId, userId));
}
