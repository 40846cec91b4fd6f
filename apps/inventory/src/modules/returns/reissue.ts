import { and, eq, isNull, or } from 'drizzle-orm';
import { AppError, type Queryable, type Tx } from '@wms/platform';
import { OUTBOUND_STATUS, users, type OutboundRequestRow, type TransOutboundRow, type TransReturnRow } from '../../db/schema/index.js';
import { createReservedRequest } from '../outbound/request-submit-service.js';

/**
 * Whose request the reissue is (spec 4.1 rule 5): the named user, else the applicant of the original
 * outbound line; never the caller. A named user must exist (a user of another company counts as not
 * existing: 404, contract §7 "unknown ids"; a user of no company may be named). A line without an
 * applicant needs the name: 400 NO_APPLICANT.
 */
export async function resolveReissueApplicant(q: Queryable, line: TransOutboundRow, named: number | null | undefined): Promise<number> {
  if (named != null) {
    const [user] = await q
      .select({ id: users.id })
      .from(users)
      .where(and(eq(users.id, named), or(isNull(users.companyName), eq(users.companyName, line.companyName))));
    if (!user) {
      throw new AppError('NOT_FOUND', `补发申请人（用户 ${named}）不存在`, { field: 'reissue_applicant_id' });
    }
    return user.id;
  }
  if (line.applicantId != null) return line.applicantId;
  throw new AppError('NO_APPLICANT', '原出库记录没有申请人，无法确定补发申请人，请传 reissue_applicant_id 指定', {
    field: 'reissue_applicant_id',
  });
}

/**
 * The reissue (spec 4.1 rule 3): an outbound request of the original line's company, material and
 * outbound_type, created already approved (status 1, no approval step, no approver) and marked by
 * source_return_id. Its stock is reserved strictly by the common allocation rule: a shortage throws
 * STOCK_SHORTAGE and the caller's transaction — the whole return — rolls back (rule 4).
 */
export async function createReissueRequest(
  tx: Tx,
  input: { line: TransOutboundRow; returned: TransReturnRow; quantity: string; applicantId: number; now: Date },
): Promise<OutboundRequestRow> {
  const { line, returned, quantity, applicantId, now } = input;
  const { row } = await createReservedRequest(tx, now, {
    applicantId,
    companyName: line.companyName,
    outboundType: line.outboundType,
    items: [{ base_id: line.baseId, quantity }],
    remark: reissueRemark(line, returned),
    status: OUTBOUND_STATUS.approved,
    sourceReturnId: returned.id,
  });
  return row;
}

/** The remark carries the original consumer (free text, not an identity) and where the reissue came from. */
function reissueRemark(line: TransOutboundRow, returned: TransReturnRow): string {
  const consumer = line.consumerName.trim() || '（未填写）';
  const reason = returned.reason ? `；退货原因：${returned.reason}` : '';
  return `退货补发：原出库单 ${line.outboundNo}，原领用人：${consumer}${reason}`;
}
