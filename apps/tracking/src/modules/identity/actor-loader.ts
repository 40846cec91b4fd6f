import { eq } from 'drizzle-orm';
import type { Actor, Database, TokenClaims } from '@wms/platform';
import { users } from '../../db/schema/index.js';
import { normalizeDepartment } from './department.js';

const MAX_ID = 2147483647;

/**
 * Loads the caller on every request: the token only names the user, the table decides whether the
 * account is still active, still of ORG_DEPARTMENT, and what its role is now. Authorisation is by
 * role, so the actor carries no grants; its company is the department.
 */
export function createActorLoader(database: Database, orgDepartment: string) {
  return async (claims: TokenClaims): Promise<Actor | null> => {
    const userId = Number(claims.sub);
    if (!Number.isInteger(userId) || userId <= 0 || userId > MAX_ID) return null;
    const [row] = await database.read((q) =>
      q
        .select({ id: users.id, username: users.username, name: users.name, role: users.role, department: users.department, active: users.active })
        .from(users)
        .where(eq(users.id, userId)),
    );
    if (!row || !row.active || normalizeDepartment(row.department) !== orgDepartment) return null;
    return { id: row.id, username: row.username, name: row.name, role: row.role, company: orgDepartment, grants: new Set() };
  };
}
