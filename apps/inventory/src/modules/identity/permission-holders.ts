import { and, eq, sql } from 'drizzle-orm';
import { expandGrants, hasPermission, type Queryable } from '@wms/platform';
import { rolePermissions, users } from '../../db/schema/index.js';
import { DERIVED_GRANTS } from './permission-catalog.js';

export interface PermissionHolderUser {
  id: number;
  username: string;
  name: string;
  /** Trimmed; null when the user has none. */
  email: string | null;
}

/**
 * The company's active users who hold the code, decided by the same bridge as a request's permission
 * check; users and their role grants are read in one query. A SUPER_ADMIN without a company belongs to
 * no company and is never among them. Ordered by id.
 */
export async function companyPermissionHolders(q: Queryable, company: string, code: string): Promise<PermissionHolderUser[]> {
  const rows = await q
    .select({
      id: users.id,
      username: users.username,
      name: users.name,
      email: users.email,
      role: users.role,
      grants: sql<string[]>`coalesce(array_agg(${rolePermissions.permissionCode}) filter (where ${rolePermissions.permissionCode} is not null), '{}')`,
    })
    .from(users)
    .leftJoin(rolePermissions, eq(rolePermissions.roleCode, users.role))
    .where(and(eq(users.companyName, company), eq(users.active, true)))
    .groupBy(users.id)
    .orderBy(users.id);
  return rows
    .filter((row) => hasPermission({ role: row.role, grants: expandGrants(row.grants, DERIVED_GRANTS) }, code))
    .map((row) => ({ id: row.id, username: row.username, name: row.name, email: row.email?.trim() || null }));
}

/** The distinct mail addresses of those holders; users without an address cannot be recipients. */
export async function holderAddresses(q: Queryable, company: string, code: string): Promise<string[]> {
  const holders = await companyPermissionHolders(q, company, code);
  return [...new Set(holders.flatMap((holder) => (holder.email ? [holder.email] : [])))];
}
