import { and, eq, inArray } from 'drizzle-orm';
import { toQuantityOrZero, type Actor, type Queryable } from '@wms/platform';
import { transBorrowTransfer, type TransBorrowRow, type TransBorrowTransferRow } from '../../db/schema/index.js';
import { rowSnapshotView } from '../scan-execution/row-snapshot.js';
import { pendingQuantityOf, receiverCanDecide } from './line-access.js';
import type { BorrowLineView } from './schemas.js';
import { toTransferView, userNamesOf } from './transfer-views.js';

/** What a set of lines refers to: their PENDING transfers and the names of everybody involved. */
export interface LineLookups {
  pendingTransfers: Map<number, TransBorrowTransferRow>;
  names: Map<number, string>;
}

/**
 * Two queries for any number of lines: PENDING transfers, then user names. A PENDING transfer whose
 * receiver can no longer decide it (deactivated, moved away) is not shown as waiting: the holder's next
 * return, split or transfer closes it (line-access), so the line is the holder's to act on.
 */
export async function lineLookupsFor(q: Queryable, lines: readonly TransBorrowRow[]): Promise<LineLookups> {
  const ids = lines.map((line) => line.id);
  const pending = ids.length
    ? await q
        .select()
        .from(transBorrowTransfer)
        .where(and(inArray(transBorrowTransfer.borrowId, ids), eq(transBorrowTransfer.status, 'PENDING'), receiverCanDecide))
    : [];
  const names = await userNamesOf(q, [
    ...lines.flatMap((line) => [line.currentHolderId, line.borrowerId]),
    ...pending.flatMap((transfer) => [transfer.fromUserId, transfer.toUserId]),
  ]);
  return { pendingTransfers: new Map(pending.map((transfer) => [transfer.borrowId, transfer])), names };
}

/** Spec 2.6: the borrower's name is the user table's now; the name stored at dispatch only if the user is gone. */
export const borrowerNameOf = (line: TransBorrowRow, lookups: LineLookups): string => lookups.names.get(line.borrowerId) ?? line.borrowerName;

/** The only way a borrow line leaves the service; the flags are the caller's view of it (spec 4.3). */
export function toLineView(line: TransBorrowRow, lookups: LineLookups, actor: Actor): BorrowLineView {
  const pending = lookups.pendingTransfers.get(line.id) ?? null;
  const isMine = line.currentHolderId === actor.id;
  return {
    id: line.id,
    borrow_no: line.borrowNo,
    request_id: line.requestId,
    ...rowSnapshotView(line),
    quantity: toQuantityOrZero(line.quantity),
    returned_quantity: toQuantityOrZero(line.returnedQuantity),
    pending_quantity: toQuantityOrZero(pendingQuantityOf(line).toString()),
    borrower_id: line.borrowerId,
    borrower_name: borrowerNameOf(line, lookups),
    current_holder_id: line.currentHolderId,
    current_holder_name: line.currentHolderId !== null ? (lookups.names.get(line.currentHolderId) ?? null) : null,
    dispatch_operator: line.dispatchOperator,
    location: line.location,
    status: line.status,
    company_name: line.companyName,
    borrowed_at: line.borrowedAt.toISOString(),
    returned_at: line.returnedAt ? line.returnedAt.toISOString() : null,
    split_from_id: line.splitFromId,
    is_mine: isMine,
    can_transfer: isMine && line.status === 'borrowed' && pending === null,
    pending_transfer: pending ? toTransferView(pending, line, lookups.names) : null,
  };
}

export async function toLineViews(q: Queryable, lines: readonly TransBorrowRow[], actor: Actor): Promise<BorrowLineView[]> {
  const lookups = await lineLookupsFor(q, lines);
  return lines.map((line) => toLineView(line, lookups, actor));
}

export async function toLineViewOf(q: Queryable, line: TransBorrowRow, actor: Actor): Promise<BorrowLineView> {
  const [view] = await toLineViews(q, [line], actor);
  return view!;
}
