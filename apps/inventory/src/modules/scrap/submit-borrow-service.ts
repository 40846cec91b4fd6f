import { and, asc, inArray } from 'drizzle-orm';
import { AppError, companyCondition, notFound, type CompanyScope, type Tx, type UseCaseContext } from '@wms/platform';
import { transBorrow, type ScrapLine, type TransBorrowRow } from '../../db/schema/index.js';
import { assertBorrowed, assertNoPendingTransfer, pendingQuantityOf } from '../borrow/line-access.js';
import { createScrapRequest } from './create-request.js';
import { assertNotOnOpenScrap } from './open-scrap-lines.js';
import { toScrapRequestViewOf } from './request-views.js';
import type { BorrowScrapBody, ScrapRequestView } from './schemas.js';

/**
 * POST /borrow/scrap-request (spec 3.4, 4.3): borrowed lines that will never come back go on one scrap
 * request in auto mode (reason category 借用报废), each for what is still out. Nothing is reserved: the
 * quantity is already frozen out of available_quantity by the borrow. Every line is checked, none is
 * skipped: unknown or another company's 404; returned or scrapped 400 STATUS_NOT_ALLOWED; a PENDING
 * transfer or an open scrap request on it 400. The lines are locked in id order while checked.
 */
export async function submitBorrowScrap(ctx: UseCaseContext, input: BorrowScrapBody): Promise<ScrapRequestView> {
  return ctx.transaction(async (tx) => {
    const lines = await lockBorrowLinesForScrap(tx, ctx.scope(), input.borrow_ids, ctx.now);
    const created = await createScrapRequest(tx, ctx.now, {
      applicantId: ctx.actor.id,
      companyName: lines[0]!.companyName,
      mode: 'auto',
      reason: input.reason,
      reasonCategory: '借用报废',
      lines: lines.map(borrowScrapLine),
      approverIds: input.approver_ids,
      remark: input.remark,
    });
    return toScrapRequestViewOf(tx, created);
  });
}

/**
 * The borrow lines a scrap request names, locked in id order and checked: every one in the scope (404),
 * still borrowed (400), without a PENDING transfer or an open scrap request (400), all of one company.
 */
export async function lockBorrowLinesForScrap(tx: Tx, scope: CompanyScope, borrowIds: readonly number[], now: Date): Promise<TransBorrowRow[]> {
  const ids = [...new Set(borrowIds)].sort((a, b) => a - b);
  const locked = await tx
    .select()
    .from(transBorrow)
    .where(and(inArray(transBorrow.id, ids), companyCondition(scope, transBorrow.companyName)))
    .orderBy(asc(transBorrow.id))
    .for('update');
  const visible = new Map(locked.map((line) => [line.id, line]));
  const lines = ids.map((id) => {
    const line = visible.get(id);
    if (!line) throw notFound(`借用记录 ${id}`);
    assertBorrowed(line, '申请报废');
    return line;
  });
  for (const line of lines) await assertNoPendingTransfer(tx, line, '申请报废', now);
  await assertNotOnOpenScrap(tx, 'trans_borrow', ids);
  const companies = new Set(lines.map((line) => line.companyName));
  if (companies.size > 1) {
    throw new AppError('VALIDATION_FAILED', `同一报废申请的借用记录必须属于同一公司（涉及 ${[...companies].join('、')}）`, { field: 'borrow_ids' });
  }
  return lines;
}

/** A borrowed line is scrapped whole: what is still out. Nothing is reserved (the borrow froze it). */
export const borrowScrapLine = (line: TransBorrowRow): ScrapLine => ({
  source_table: 'trans_borrow',
  stock_id: line.id,
  base_id: line.baseId,
  quantity: pendingQuantityOf(line).toString(),
  location: line.location,
  reserved: false,
});
