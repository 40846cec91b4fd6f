import { toDecimalString, type UseCaseContext } from '@wms/platform';
import { BORROW_STATUS, borrowRequests } from '../../db/schema/index.js';
import { companyForRecord } from '../identity/company-rules.js';
import { reserveStock } from '../reservation/index.js';
import { toRequestViewOf } from './request-views.js';
import type { BorrowRequestView, SubmitBorrowBody } from './schemas.js';

/**
 * POST /borrow/request (spec 3.3, 4.1 allocation rule): a new request in status 0, its lines allocated
 * and reserved at once exactly like an outbound request's. Strict: a shortage is 400 STOCK_SHORTAGE
 * and nothing is written. It belongs to the applicant's company; cross-domain callers name it.
 */
export async function submitBorrowRequest(ctx: UseCaseContext, input: SubmitBorrowBody): Promise<BorrowRequestView> {
  const companyName = await ctx.read((q) => companyForRecord(q, ctx.actor, input.company_name));
  const items = input.items.map((item) => ({ base_id: item.base_id, quantity: toDecimalString(item.quantity) }));
  return ctx.transaction(async (tx) => {
    const { lines } = await reserveStock(tx, companyName, items);
    const [created] = await tx
      .insert(borrowRequests)
      .values({
        applicantId: ctx.actor.id,
        companyName,
        status: BORROW_STATUS.pending,
        itemsJson: lines,
        remark: input.remark?.trim() || null,
        expectedReturnDate: input.expected_return_date ?? null,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    return toRequestViewOf(tx, created!);
  });
}
