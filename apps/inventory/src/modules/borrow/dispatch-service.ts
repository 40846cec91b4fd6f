import type { UseCaseContext } from '@wms/platform';
import { transBorrow } from '../../db/schema/index.js';
import { lockRequest, requestsInScope } from '../request-workflow/request-access.js';
import { assertMayMove, moveRequest } from '../request-workflow/transitions.js';
import { rowSnapshotOf } from '../scan-execution/row-snapshot.js';
import { sumPerBarcode } from '../scan-execution/scanned-lines.js';
import { takeScannedLines, type ScanExecution } from '../scan-execution/take-scanned.js';
import { nextBorrowNo } from './borrow-no.js';
import { activeUserOf } from './line-access.js';
import { toLineViews } from './line-views.js';
import { borrowFlow } from './request-flow.js';
import type { DispatchBody, DispatchResult } from './schemas.js';

/** A dispatch freezes what was scanned: available falls, stock_quantity keeps it. */
const BORROW_SCAN: ScanExecution = { verb: '借出', noun: '借用申请', field: 'lines.barcode', taking: 'freeze' };

/**
 * POST /borrow/dispatch (spec 3.3, 4.3; contract §8 "Outbound and borrow execution"): dispatches an
 * approved request once, by scan, to a borrower. Dispatch deducts no stock: the request's reservation is
 * released through the shared routine and each scanned row's quantity is frozen instead (available
 * falls, stock_quantity keeps it). One borrow line per scanned row under a new borrow_no, held by the
 * borrower; the request moves to 3 and what was not dispatched stays released.
 * Lock order: the request, then every involved stock row in ascending id order.
 */
export async function dispatchBorrow(ctx: UseCaseContext, input: DispatchBody): Promise<DispatchResult> {
  const scans = sumPerBarcode(input.lines);
  return ctx.transaction(async (tx) => {
    const request = await lockRequest(tx, borrowFlow, input.request_id, requestsInScope(ctx, borrowFlow));
    assertMayMove(borrowFlow, request, 'dispatch');
    const borrower = await activeUserOf(tx, request.companyName, input.borrower_id, 'borrower_id');
    const { picks, released } = await takeScannedLines(tx, request, scans, BORROW_SCAN);

    const borrowNo = await nextBorrowNo(tx, ctx.now);
    const inserted = await tx
      .insert(transBorrow)
      .values(
        picks.map(({ row, quantity }) => ({
          borrowNo,
          requestId: request.id,
          ...rowSnapshotOf(row),
          quantity: quantity.toString(),
          initialQuantity: quantity.toString(),
          borrowerId: borrower.id,
          borrowerName: borrower.name,
          currentHolderId: borrower.id,
          dispatchOperator: ctx.actor.username,
          dispatchOperatorId: ctx.actor.id,
          location: input.location?.trim() ?? '',
          status: 'borrowed' as const,
          companyName: request.companyName,
          borrowedAt: ctx.now,
          createdAt: ctx.now,
          updatedAt: ctx.now,
        })),
      )
      .returning();
    await moveRequest(tx, borrowFlow, request, 'dispatch', { itemsJson: released, dispatchedAt: ctx.now }, ctx.now);
    const lines = inserted.sort((a, b) => a.id - b.id);
    return {
      borrow_no: borrowNo,
      request_id: request.id,
      borrowed_at: ctx.now.toISOString(),
      lines: await toLineViews(tx, lines, ctx.actor),
    };
  });
}
