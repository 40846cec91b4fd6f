import { and, eq, isNotNull, ne, sql } from 'drizzle-orm';
import { expandGrants, hasPermission, type Queryable } from '@wms/platform';
import { rolePermissions, users } from '../../db/schema/index.js';
import { DERIVED_GRANTS } from '../identity/permission-catalog.js';

/** Who gets the low-stock mail (contract §8): holders of the pending pool, the purchasers. */
export const LOW_STOCK_RECIPIENT_CODE = 'inbound_purchase:pending_pool';

/**
 * The mail addresses of the company's active users who hold the code, decided by the same bridge as a
 * request's permission check. Users and their role grants are read in one query. A SUPER_ADMIN without
 * a company belongs to no company and is never a recipient; users without an address cannot be.
 */
export async function lowStockRecipients(q: Queryable, company: string): Promise<string[]> {
  const rows = await q
    .select({
      email: users.email,
      role: users.role,
      grants: sql<string[]>`coalesce(array_agg(${rolePermissions.permissionCode}) filter (where ${rolePermissions.permissionCode} is not null), '{}')`,
    })
    .from(users)
    .leftJoin(rolePermissions, eq(rolePermissions.roleCode, users.role))
    .where(and(eq(users.companyName, company), eq(users.active, true), isNotNull(users.email), ne(users.email, '')))
    .groupBy(users.id)
    .orderBy(users.id);
  const addresses = rows
    .filter((row) => hasPermission({ role: row.role, grants: expandGrants(row.grants, DERIVED_GRANTS) }, LOW_STOCK_RECIPIENT_CODE))
    .map((row) => row.email!.trim());
  return [...new Set(addresses)];
}
