import { eq, sql } from 'drizzle-orm';
import { expandGrants, type ActorSource, type Database } from '@wms/platform';
import { rolePermissions, users } from '../../db/schema/index.js';
import { DERIVED_GRANTS } from './permission-catalog.js';

/**
 * The account version of an inventory caller: the user row's xmin changes with every update of the
 * row (role, company, active, name…), the role's version with every change of its grants. No row for
 * an unknown or inactive user. `userId` is the SQL of the id (a parameter, or a column of a batch).
 */
export function actorVersionSql(userId: string): string {
  return `select u.xmin::text || '.' || coalesce(rv.version, 0)::text as version
  from users u left join role_versions rv on rv.role_code = u.role
  where u.id = ${userId} and u.active`;
}

export const ACTOR_VERSION_SQL = actorVersionSql('$1');

/**
 * Inventory callers: the token only names the user, the table decides whether the account is still
 * active and what its role, company and grants are now. The guards cache the actor by this version.
 */
export function createActorLoader(database: Database): ActorSource {
  const actorById = database.db
    .select({
      id: users.id,
      username: users.username,
      name: users.name,
      role: users.role,
      companyName: users.companyName,
      active: users.active,
      // the one version formula, for the user row read here
      version: sql<string>`(select version from (${sql.raw(actorVersionSql('"users"."id"'))}) as current_version)`,
      grants: sql<string[]>`coalesce(array_agg(${rolePermissions.permissionCode}) filter (where ${rolePermissions.permissionCode} is not null), '{}')`,
    })
    .from(users)
    .leftJoin(rolePermissions, eq(rolePermissions.roleCode, users.role))
    .where(eq(users.id, sql.placeholder('id')))
    .groupBy(users.id)
    .prepare('load_actor');
  return {
    versionQuery: ACTOR_VERSION_SQL,
    async load(userId) {
      const [row] = await database.read(() => actorById.execute({ id: userId }));
      if (!row || !row.active) return null;
      return {
        version: row.version,
        actor: {
          id: row.id,
          username: row.username,
          name: row.name,
          role: row.role,
          company: row.companyName,
          grants: expandGrants(row.grants, DERIVED_GRANTS),
        },
      };
    },
  };
}
