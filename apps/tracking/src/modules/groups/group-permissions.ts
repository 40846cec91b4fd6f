import { and, eq } from 'drizzle-orm';
import { forbidden, type Actor, type Tx } from '@wms/platform';
import { businessGroupMembers } from '../../db/schema/index.js';

/**
 * Who may do what with business groups (spec 4.2). Creating, changing and deleting a group and its
 * phases (the scope) is SUPER_ADMIN only (the routes say so); members and leaders may also be managed
 * by any SUPERVISOR and by a leader of that very group.
 */
export const canManageGroup = (actor: Pick<Actor, 'role'>) => actor.role === 'SUPER_ADMIN';

export const canManageMembers = (actor: Pick<Actor, 'role'>, leadsThisGroup: boolean) =>
  actor.role === 'SUPER_ADMIN' || actor.role === 'SUPERVISOR' || leadsThisGroup;

export async function leadsGroup(tx: Tx, userId: number, groupId: number): Promise<boolean> {
  const [row] = await tx
    .select({ isLeader: businessGroupMembers.isLeader })
    .from(businessGroupMembers)
    .where(and(eq(businessGroupMembers.groupId, groupId), eq(businessGroupMembers.userId, userId)));
  return row?.isLeader ?? false;
}

export async function assertMayManageMembers(tx: Tx, actor: Actor, groupId: number): Promise<void> {
  if (canManageMembers(actor, await leadsGroup(tx, actor.id, groupId))) return;
  throw forbidden('只有超级管理员、主管或本组组长可以管理成员');
}
