import { eq, sql } from 'drizzle-orm';
import { expandGrants, type Actor, type Database, type TokenClaims } from '@wms/platform';
import { rolePermissions, users } from '../../db/schema/index.js';
import { DERIVED_GRANTS } from './permission-catalog.js';

/**
 * Loads the caller on every request: the token only names the user, the table decides whether the
 * account is still active and what its role and company are now (an inactive user's token stops working).
 * A prepared statement: every request runs it, so it is built and planned once per connection.
 */
export function createActorLoader(database: Database) {
  const actorById = database.db
    .select({
      id: users.id,
      username: users.username,
      name: users.name,
      role: users.role,
      companyName: users.companyName,
      active: users.active,
      grants: sql<string[]>`coalesce(array_agg(${rolePermissions.permissionCode}) filter (where ${rolePermissions.permissionCode} is not null), '{}')`,
    })
    .from(users)
    .leftJoin(rolePermissions, eq(rolePermissions.roleCode, users.role))
    .where(eq(users.id, sql.placeholder('id')))
    .groupBy(users.id)
    .prepare('load_actor');
  return async (claims: TokenClaims): Promise<Actor | null> => {
    const userId = Number(claims.sub);
    if (!Number.isInteger(userId) || userId <= 0) return null;
    const [row] = await database.read(() => actorById.execute({ id: userId }));
    if (!row || !row.active) return null;
    return {
      id: row.id,
      username: row.username,
      name: row.name,
      role: row.role,
      company: row.companyName,
      grants: expandGrants(row.grants, DERIVED_GRANTS),
    };
  };
}
