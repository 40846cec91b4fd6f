import { and, eq, inArray, isNull, or } from 'drizzle-orm';
import { AppError, type Queryable } from '@wms/platform';
import { users } from '../../db/schema/index.js';
import { companyPermissionHolders } from '../identity/permission-holders.js';
import { SCRAP_EXECUTE } from './request-access.js';

/**
 * A scrap request's allowed_approvers (contract §4): approver_ids when given — each an active user of
 * the request's company or of no company (else 400 naming them), repeats counted once, an empty list
 * kept empty (nobody may approve) — else the company's active users who hold scrap_execute now, decided
 * by the same bridge as a route's permission check (SUPER_ADMIN of the company included).
 */
export async function allowedApproversFor(q: Queryable, company: string, named: readonly number[] | undefined): Promise<number[]> {
  if (named) return checkNamedApprovers(q, company, [...new Set(named)]);
  return (await companyPermissionHolders(q, company, SCRAP_EXECUTE)).map((holder) => holder.id);
}

async function checkNamedApprovers(q: Queryable, company: string, ids: number[]): Promise<number[]> {
  if (ids.length === 0) return [];
  const found = await q
    .select({ id: users.id })
    .from(users)
    .where(and(inArray(users.id, ids), eq(users.active, true), or(eq(users.companyName, company), isNull(users.companyName))));
  const known = new Set(found.map((user) => user.id));
  const invalid = ids.filter((id) => !known.has(id));
  if (invalid.length > 0) {
    throw new AppError('VALIDATION_FAILED', `审批人不存在、已停用或不属于公司 ${company}：${invalid.join('、')}`, {
      field: 'approver_ids',
      invalid_ids: invalid,
    });
  }
  return ids;
}
