import { and, eq } from 'drizzle-orm';
import type { Queryable } from '@wms/platform';
import { users } from '../../db/schema/index.js';
import { inDepartment } from '../identity/department.js';

/** The audit label of a message that names no operator (contract §8). */
export const INVENTORY_SYSTEM_LABEL = '库存系统';

/**
 * Who the audit log shows for a notification (spec 4.1 rule 4): the display name of the department's
 * account whose username is the operator, else the operator's account string as sent, else (no
 * operator) the inventory system.
 */
export async function operatorLabel(q: Queryable, operator: string | null | undefined, department: string): Promise<string> {
  const account = operator?.trim();
  if (!account) return INVENTORY_SYSTEM_LABEL;
  const [user] = await q
    .select({ name: users.name })
    .from(users)
    .where(and(eq(users.username, account), inDepartment(users.department, department)));
  return user?.name.trim() || account;
}
