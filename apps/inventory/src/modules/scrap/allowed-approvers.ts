import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import { AppError, type Queryable } from '@wms/platform';
import { users } from '../../db/schema/index.js';
import { companyPermissionHolders } from '../identity/permission-holders.js';
import { SCRAP_EXECUTE } from './request-access.js';

/**
 * A scrap request's allowed_approvers (contract §4): approver_ids when given — each an active user of
 * the request's company or of no company, repeats counted once, an empty list kept empty (nobody may
 * approve) — else the company's active users who hold scrap_execute now, decided by the same bridge as
 * a route's permission check (SUPER_ADMIN of the company included). An unknown id or a user of another
 * company is 404 (contract §3, §7), an inactive user 400, both naming the field and the ids (as for
 * borrower_id and to_user_id).
 */
export async function allowedApproversFor(q: Queryable, company: string, named: readonly number[] | undefined): Promise<number[]> {
  if (named) return checkNamedApprovers(q, company, [...new Set(named)]);
  return (await companyPermissionHolders(q, company, SCRAP_EXECUTE)).map((holder) => holder.id);
}

async function checkNamedApprovers(q: Queryable, company: string, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await q
    .select({ id: users.id, active: users.active })
    .from(users)
    .where(and(inArray(users.id, ids), or(eq(users.companyName, company), isNull(users.companyName))));
  const known = new Map(found.map((user) => [user.id, user.active]));
  const unknown = ids.filter((id) => !known.has(id));
  if (unknown.length > 0) {
    throw new AppError('NOT_FOUND', `审批人不存在或不属于公司 ${company}：${unknown.join('、')}`, {
      field: 'approver_ids',
      invalid_ids: unknown,
    });
  }
  const inactive = ids.filter((id) => !known.get(id));
  if (inactive.length > 0) {
    throw new AppError('VALIDATION_FAILED', `审批人已停用：${inactive.join('、')}`, { field: 'approver_ids', invalid_ids: inactive });
  }
  return ids;
}
