import { eq, sql } from 'drizzle-orm';
import type { ActorSource, Database } from '@wms/platform';
import { users } from '../../db/schema/index.js';
import { normalizeDepartment } from './department.js';

/** The account version of a tracking caller: the user row's xmin changes with every update of the row. */
const ACTOR_VERSION_SQL = 'select xmin::text as version from users where id = $1 and active';

/**
 * Tracking callers: the token only names the user, the table decides whether the account is still
 * active, still of ORG_DEPARTMENT, and what its role is now. Authorisation is by role, so the actor
 * carries no grants; its company is the department. The guards cache the actor by its version.
 */
export function createActorLoader(database: Database, orgDepartment: string): ActorSource {
  return {
    versionQuery: ACTOR_VERSION_SQL,
    async load(userId) {
      const [row] = await database.read((q) =>
        q
          .select({
            id: users.id,
            username: users.username,
            name: users.name,
            role: users.role,
            department: users.department,
            active: users.active,
            version: sql<string>`${users}.xmin::text`,
          })
          .from(users)
          .where(eq(users.id, userId)),
      );
      if (!row || !row.active || normalizeDepartment(row.department) !== orgDepartment) return null;
      return {
        version: row.version,
        actor: { id: row.id, username: row.username, name: row.name, role: row.role, company: orgDepartment, grants: new Set() },
      };
    },
  };
}
