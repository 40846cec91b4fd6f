import { and, asc, count, eq, inArray, ne, notExists, sql, type SQL } from 'drizzle-orm';
import { alias } from 'drizzle-orm/pg-core';
import { type Actor, forbidden, keywordMatch, notFound, pageOf, pagingOf, type Queryable, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import {
  businessGroupMembers,
  businessGroupPhases,
  businessGroups,
  LIFECYCLE_PHASES,
  users,
  type BusinessGroupRow,
  type LifecyclePhase,
} from '../../db/schema/index.js';
import { inDepartment } from '../identity/department.js';
import { canManageGroup, canManageMembers } from './group-permissions.js';
import type { CandidateQuery, GroupDetailView, GroupListQuery, GroupView, MemberView } from './schemas.js';

const parents = alias(businessGroups, 'parent_group');
const mine = alias(businessGroupMembers, 'my_membership');

/** Groups with the caller's own membership joined in, so the flags need no query per group. */
function selectGroups(q: Queryable, actor: Actor) {
  return q
    .select({
      group: businessGroups,
      parentName: parents.name,
      memberCount: sql<number>`(select count(*) from ${businessGroupMembers} where ${businessGroupMembers.groupId} = ${businessGroups.id})`.mapWith(Number),
      isMember: sql<boolean>`${mine.id} is not null`,
      isLeader: sql<boolean>`coalesce(${mine.isLeader}, false)`,
    })
    .from(businessGroups)
    .leftJoin(parents, eq(parents.id, businessGroups.parentId))
    .leftJoin(mine, and(eq(mine.groupId, businessGroups.id), eq(mine.userId, actor.id)));
}

interface GroupRecord {
  group: BusinessGroupRow;
  parentName: string | null;
  memberCount: number;
  isMember: boolean;
  isLeader: boolean;
}

/** Own phases of the given groups, in one query. */
async function phasesOf(q: Queryable, groupIds: number[]): Promise<Map<number, LifecyclePhase[]>> {
  const byGroup = new Map<number, LifecyclePhase[]>();
  if (groupIds.length === 0) return byGroup;
  const rows = await q.select().from(businessGroupPhases).where(inArray(businessGroupPhases.groupId, groupIds));
  for (const row of rows) {
    const list = byGroup.get(row.groupId) ?? [];
    list.push(row.phase as LifecyclePhase);
    byGroup.set(row.groupId, list);
  }
  for (const [id, list] of byGroup) byGroup.set(id, LIFECYCLE_PHASES.filter((phase) => list.includes(phase)));
  return byGroup;
}

async function toGroupViews(q: Queryable, actor: Actor, records: GroupRecord[]): Promise<GroupView[]> {
  const ids = new Set<number>();
  for (const { group } of records) {
    ids.add(group.id);
    if (group.parentId !== null) ids.add(group.parentId);
  }
  const phases = await phasesOf(q, [...ids]);
  return records.map(({ group, parentName, memberCount, isLeader }) => {
    const own = phases.get(group.id) ?? [];
    const inherited = group.parentId !== null && own.length === 0 ? (phases.get(group.parentId) ?? []) : own;
    return {
      id: group.id,
      name: group.name,
      parent_id: group.parentId,
      parent_name: parentName,
      active: group.active,
      phases: own,
      effective_phases: inherited,
      member_count: memberCount,
      can_manage_members: canManageMembers(actor, isLeader),
      can_manage_group: canManageGroup(actor),
      is_my_leader: isLeader,
      created_at: group.createdAt.toISOString(),
      updated_at: group.updatedAt.toISOString(),
    };
  });
}

/** Super admin: every group; anybody else: the groups they belong to (spec 4.2). Parents precede their sub-groups. */
export async function listGroups(ctx: UseCaseContext, query: GroupListQuery) {
  const paging = pagingOf(query);
  const conditions: (SQL | undefined)[] = [canManageGroup(ctx.actor) ? undefined : sql`${mine.id} is not null`];
  conditions.push(keywordMatch(query.keyword, businessGroups.name));
  if (query.active !== undefined) conditions.push(eq(businessGroups.active, query.active));
  conditions.push(timeRangeCondition(businessGroups.createdAt, query.start_date, query.end_date));
  const where = and(...conditions);
  return ctx.read(async (q) => {
    const records = await selectGroups(q, ctx.actor)
      .where(where)
      .orderBy(sql`coalesce(${businessGroups.parentId}, ${businessGroups.id})`, sql`${businessGroups.parentId} nulls first`, asc(businessGroups.id))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q
      .select({ n: count() })
      .from(businessGroups)
      .leftJoin(mine, and(eq(mine.groupId, businessGroups.id), eq(mine.userId, ctx.actor.id)))
      .where(where);
    return pageOf(await toGroupViews(q, ctx.actor, records), total?.n ?? 0, paging);
  });
}

/** One group as the caller sees it (flags included); 404 when it does not exist. */
export async function groupViewOf(q: Queryable, actor: Actor, id: number): Promise<GroupView> {
  const [record] = await selectGroups(q, actor).where(eq(businessGroups.id, id));
  if (!record) throw notFound('业务组');
  const [view] = await toGroupViews(q, actor, [record]);
  return view!;
}

async function membersOf(q: Queryable, groupId: number): Promise<MemberView[]> {
  const rows = await q
    .select({ member: businessGroupMembers, user: { username: users.username, name: users.name, role: users.role, active: users.active } })
    .from(businessGroupMembers)
    .innerJoin(users, eq(users.id, businessGroupMembers.userId))
    .where(eq(businessGroupMembers.groupId, groupId))
    .orderBy(sql`${businessGroupMembers.isLeader} desc`, asc(businessGroupMembers.id));
  return rows.map(({ member, user }) => ({
    user_id: member.userId,
    username: user.username,
    name: user.name,
    role: user.role,
    active: user.active,
    is_leader: member.isLeader,
    joined_at: member.createdAt.toISOString(),
  }));
}

/** A group with its members. Anybody but the super admin may read only groups they belong to (403). */
export async function getGroup(ctx: UseCaseContext, id: number): Promise<GroupDetailView> {
  return ctx.read(async (q) => {
    const [record] = await selectGroups(q, ctx.actor).where(eq(businessGroups.id, id));
    if (!record) throw notFound('业务组');
    if (!canManageGroup(ctx.actor) && !record.isMember) throw forbidden('只能查看自己所在的业务组');
    const [view] = await toGroupViews(q, ctx.actor, [record]);
    return { ...view!, members: await membersOf(q, id) };
  });
}

/**
 * Users that may be added to a group: active accounts of the department, super admins excluded, and
 * with group_id the group's current members excluded. A bare array, by name.
 */
export async function listMemberCandidates(ctx: UseCaseContext, query: CandidateQuery) {
  return ctx.read(async (q) => {
    const conditions: (SQL | undefined)[] = [
      inDepartment(users.department, ctx.actor.company ?? ''),
      eq(users.active, true),
      ne(users.role, 'SUPER_ADMIN'),
    ];
    if (query.group_id) {
      const [group] = await q.select({ id: businessGroups.id }).from(businessGroups).where(eq(businessGroups.id, query.group_id));
      if (!group) throw notFound('业务组');
      conditions.push(
        notExists(
          q
            .select({ id: businessGroupMembers.id })
            .from(businessGroupMembers)
            .where(and(eq(businessGroupMembers.groupId, query.group_id), eq(businessGroupMembers.userId, users.id))),
        ),
      );
    }
    const rows = await q
      .select({ id: users.id, username: users.username, name: users.name, role: users.role })
      .from(users)
      .where(and(...conditions))
      .orderBy(asc(users.name), asc(users.id));
    return rows;
  });
}

