import { and, count, eq, notInArray } from 'drizzle-orm';
import { AppError, notFound, requirePatchedField, validationFailed, type Tx, type UseCaseContext } from '@wms/platform';
import { businessGroupMembers, businessGroupPhases, businessGroups, type BusinessGroupRow, type LifecyclePhase } from '../../db/schema/index.js';
import { groupViewOf } from './group-read-service.js';
import type { CreateGroupBody, UpdateGroupBody } from './schemas.js';

/**
 * Groups have two levels (spec §8): a parent must be an existing top-level group, never the group itself.
 * The parent is read FOR SHARE: a concurrent change making it a sub-group holds its row FOR UPDATE
 * (lockGroup), so one of the two waits and then sees the other's result; without the lock both could pass.
 */
async function assertValidParent(tx: Tx, parentId: number, groupId?: number): Promise<void> {
  if (parentId === groupId) throw validationFailed('业务组不能以自己为上级组', { field: 'parent_id' });
  const [parent] = await tx.select().from(businessGroups).where(eq(businessGroups.id, parentId)).for('share');
  if (!parent) throw validationFailed(`上级组 ${parentId} 不存在`, { field: 'parent_id' });
  if (parent.parentId !== null) throw validationFailed(`业务组最多两级：「${parent.name}」已是子组，不能再作为上级组`, { field: 'parent_id' });
}

async function hasSubGroups(tx: Tx, groupId: number): Promise<number> {
  const [row] = await tx.select({ n: count() }).from(businessGroups).where(eq(businessGroups.parentId, groupId));
  return row?.n ?? 0;
}

/** Replaces the group's phases, writing only the rows that change (each write is audited). */
async function replacePhases(tx: Tx, groupId: number, phases: readonly LifecyclePhase[]): Promise<void> {
  const wanted = [...new Set(phases)];
  const stale = eq(businessGroupPhases.groupId, groupId);
  await tx.delete(businessGroupPhases).where(wanted.length ? and(stale, notInArray(businessGroupPhases.phase, wanted)) : stale);
  if (wanted.length) {
    await tx
      .insert(businessGroupPhases)
      .values(wanted.map((phase) => ({ groupId, phase })))
      .onConflictDoNothing();
  }
}

async function lockGroup(tx: Tx, id: number): Promise<BusinessGroupRow> {
  const [group] = await tx.select().from(businessGroups).where(eq(businessGroups.id, id)).for('update');
  if (!group) throw notFound('业务组');
  return group;
}

/** SUPER_ADMIN only (route). */
export async function createGroup(ctx: UseCaseContext, input: CreateGroupBody) {
  return ctx.transaction(async (tx) => {
    if (input.parent_id) await assertValidParent(tx, input.parent_id);
    const [group] = await tx
      .insert(businessGroups)
      .values({ name: input.name.trim(), parentId: input.parent_id ?? null, active: input.active ?? true, createdAt: ctx.now, updatedAt: ctx.now })
      .returning();
    await replacePhases(tx, group!.id, input.phases ?? []);
    return groupViewOf(tx, ctx.actor, group!.id);
  });
}

/**
 * SUPER_ADMIN only (route). Partial; `phases` replaces the whole set. Deactivation takes effect on the
 * members' next request (the scope is resolved per request). A group with sub-groups cannot become a
 * sub-group itself (that would make three levels).
 */
export async function updateGroup(ctx: UseCaseContext, id: number, input: UpdateGroupBody) {
  // a body of only unknown fields is `{}` once the schema dropped them
  requirePatchedField(input, ['name', 'parent_id', 'active', 'phases']);
  return ctx.transaction(async (tx) => {
    const current = await lockGroup(tx, id);
    const changes: Partial<Pick<BusinessGroupRow, 'name' | 'parentId' | 'active'>> = {};
    if (input.name !== undefined && input.name.trim() !== current.name) changes.name = input.name.trim();
    if (input.active !== undefined && input.active !== current.active) changes.active = input.active;
    if (input.parent_id !== undefined && input.parent_id !== current.parentId) {
      if (input.parent_id !== null) {
        await assertValidParent(tx, input.parent_id, id);
        if (await hasSubGroups(tx, id)) throw validationFailed('该组下还有子组，不能再成为子组（最多两级）', { field: 'parent_id' });
      }
      changes.parentId = input.parent_id;
    }
    if (Object.keys(changes).length > 0) {
      await tx.update(businessGroups).set({ ...changes, updatedAt: ctx.now }).where(eq(businessGroups.id, id));
    }
    if (input.phases !== undefined) await replacePhases(tx, id, input.phases);
    return groupViewOf(tx, ctx.actor, id);
  });
}

/**
 * SUPER_ADMIN only (route). Refused with 400 IN_USE while the group has members or sub-groups; its
 * phases go with it, and its products keep no group (group_id becomes null).
 */
export async function deleteGroup(ctx: UseCaseContext, id: number): Promise<void> {
  await ctx.transaction(async (tx) => {
    const group = await lockGroup(tx, id);
    const [members] = await tx.select({ n: count() }).from(businessGroupMembers).where(eq(businessGroupMembers.groupId, id));
    if (members?.n) throw new AppError('IN_USE', `业务组「${group.name}」还有 ${members.n} 名成员，请先移除成员再删除`, { members: members.n });
    const subGroups = await hasSubGroups(tx, id);
    if (subGroups) throw new AppError('IN_USE', `业务组「${group.name}」还有 ${subGroups} 个子组，请先删除子组`, { sub_groups: subGroups });
    await tx.delete(businessGroupPhases).where(eq(businessGroupPhases.groupId, id));
    await tx.delete(businessGroups).where(eq(businessGroups.id, id));
  });
}

