import { and, eq } from 'drizzle-orm';
import { AppError, can, forbidden, validationFailed, type UseCaseContext } from '@wms/platform';
import { rolePermissions } from '../../db/schema/index.js';
import { isGrantableCode, ROLES, SELF_EDIT_KEPT } from './permission-catalog.js';

function assertKnownRole(role: string) {
  if (!(ROLES as readonly string[]).includes(role)) throw new AppError('NOT_FOUND', `角色 ${role} 不存在`);
}

/** A caller may always read its own role (spec 4.9); other roles need system_permission. */
export async function readRolePermissions(ctx: UseCaseContext, role: string) {
  assertKnownRole(role);
  if (role !== ctx.actor.role && !can(ctx.actor, 'system_permission')) throw forbidden('缺少权限: system_permission');
  const rows = await ctx.read((q) => q.select().from(rolePermissions).where(eq(rolePermissions.roleCode, role)));
  // sorted here, not by the database's collation, so GET and PUT answer the same order on every engine
  return { role, permissions: rows.map((row) => row.permissionCode).sort() };
}

/** Replaces a role's grants; an operator editing their own role keeps the permission-page codes. */
export async function replaceRolePermissions(ctx: UseCaseContext, role: string, requested: string[]) {
  assertKnownRole(role);
  const unknown = requested.filter((code) => !isGrantableCode(code));
  if (unknown.length > 0) throw validationFailed(`未知的权限代码: ${unknown.join(', ')}`, { field: 'permissions', unknown });
  const wanted = new Set(requested);
  if (role === ctx.actor.role) for (const kept of SELF_EDIT_KEPT) wanted.add(kept);

  await ctx.transaction(async (tx) => {
    const current = await tx.select().from(rolePermissions).where(eq(rolePermissions.roleCode, role)).for('update');
    const held = new Set(current.map((row) => row.permissionCode));
    const removed = [...held].filter((code) => !wanted.has(code));
    const added = [...wanted].filter((code) => !held.has(code));
    for (const code of removed) {
      await tx.delete(rolePermissions).where(eqRoleCode(role, code));
    }
    if (added.length > 0) {
      await tx.insert(rolePermissions).values(added.map((code) => ({ roleCode: role, permissionCode: code })));
    }
  });
  return { role, permissions: [...wanted].sort() };
}

const eqRoleCode = (role: string, code: string) =>
  and(eq(rolePermissions.roleCode, role), eq(rolePermissions.permissionCode, code));
