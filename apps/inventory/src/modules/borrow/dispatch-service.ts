import { and, eq, gte, sql } from 'drizzle-orm';
import { AppError, toQuantityOrZero, type Tx, type UseCaseContext } from '@wms/platform';
import { stockRows, transBorrow, type BorrowRequestRow } from '../../db/schema/index.js';
import { releaseReservation, reservedOnRow } from '../reservation/index.js';
import { nextBorrowNo } from './borrow-no.js';
import { checkPicks, lockRowsInIdOrder, resolveBarcodes, sumPerBarcode, type Pick } from './dispatch-scan.js';
import { activeUserOf } from './line-access.js';
import { toLineViews } from './line-views.js';
import { lockRequest, requestsInScope } from './request-access.js';
import { assertMayMove, moveRequest } from './transitions.js';
import type { DispatchBody, DispatchResult } from './schemas.js';

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
    const request = await lockRequest(tx, input.request_id, requestsInScope(ctx));
    assertMayMove(request, 'dispatch');
    const borrower = await activeUserOf(tx, request.companyName, input.borrower_id, 'borrower_id');
    const scannedIds = await resolveBarcodes(tx, request, [...scans.keys()]);
    const reservedIds = request.itemsJson.filter((line) => line.reserved).map((line) => line.stock_id);
    const locked = await lockRowsInIdOrder(tx, [...scannedIds.values(), ...reservedIds]);
    const picks = checkPicks(request, scans, scannedIds, locked);

    const released = await releaseReservation(tx, request.itemsJson);
    for (const pick of picks) await freeze(tx, pick, request);

    const borrowNo = await nextBorrowNo(tx, ctx.now);
    const inserted = await tx
      .insert(transBorrow)
      .values(
        picks.map(({ row, quantity }) => ({
          borrowNo,
          requestId: request.id,
          stockId: row.id,
          sourceTable: row.sourceTable,
          baseId: row.baseId,
          sku: row.sku,
          materialName: row.materialName,
          specModel: row.specModel,
          unit: row.unit,
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
    await moveRequest(tx, request, 'dispatch', { itemsJson: released, dispatchedAt: ctx.now }, ctx.now);
    const lines = inserted.sort((a, b) => a.id - b.id);
    return {
      borrow_no: borrowNo,
      request_id: request.id,
      borrowed_at: ctx.now.toISOString(),
      lines: await toLineViews(tx, lines, ctx.actor),
    };
  });
}

/** Freezes the scanned quantity out of available_quantity (stock_quantity unchanged); never below 0. */
async function freeze(tx: Tx, pick: Pick, request: BorrowRequestRow): Promise<void> {
  const quantity = pick.quantity.toString();
  const updated = await tx
    .update(stockRows)
    .set({ availableQuantity: sql`${stockRows.availableQuantity} - ${quantity}::numeric`, updatedAt: sql`now()` })
    .where(and(eq(stockRows.id, pick.row.id), gte(stockRows.availableQuantity, quantity)))
    .returning({ id: stockRows.id });
  if (updated.length === 0) {
    const available = reservedOnRow(request.itemsJson, pick.row.id).plus(pick.row.availableQuantity);
    throw new AppError(
      'STOCK_SHORTAGE',
      `条码 ${pick.row.sku} 可用数量不足：需要 ${pick.quantity.toString()}，可用 ${available.toString()}`,
      { barcode: pick.row.sku, needed: toQuantityOrZero(quantity), remaining: toQuantityOrZero(available.toString()) },
    );
  }
}
