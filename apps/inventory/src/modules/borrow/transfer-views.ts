import { inArray } from 'drizzle-orm';
import { toQuantityOrZero, type Queryable } from '@wms/platform';
import { users, type TransBorrowRow, type TransBorrowTransferRow } from '../../db/schema/index.js';
import type { TransferView } from './schemas.js';

/** The line fields a transfer answer carries. */
export type TransferLine = Pick<TransBorrowRow, 'borrowNo' | 'materialName' | 'sku'>;

const iso = (value: Date | null) => (value ? value.toISOString() : null);

/** The only way a transfer leaves the service. */
export function toTransferView(transfer: TransBorrowTransferRow, line: TransferLine, names: Map<number, string>): TransferView {
  return {
    id: transfer.id,
    borrow_id: transfer.borrowId,
    borrow_no: line.borrowNo,
    material_name: line.materialName,
    sku: line.sku,
    from_user_id: transfer.fromUserId,
    from_user_name: names.get(transfer.fromUserId) ?? null,
    to_user_id: transfer.toUserId,
    to_user_name: names.get(transfer.toUserId) ?? null,
    quantity: toQuantityOrZero(transfer.quantity),
    status: transfer.status,
    reason: transfer.reason,
    reject_seen_at: iso(transfer.rejectSeenAt),
    company_name: transfer.companyName,
    created_at: transfer.createdAt.toISOString(),
    decided_at: iso(transfer.decidedAt),
  };
}

/** Names of the given user ids in one query. */
export async function userNamesOf(q: Queryable, ids: Iterable<number | null | undefined>): Promise<Map<number, string>> {
  const unique = [...new Set([...ids].filter((id): id is number => typeof id === 'number'))];
  if (unique.length === 0) return new Map();
  const rows = await q.select({ id: users.id, name: users.name }).from(users).where(inArray(users.id, unique));
  return new Map(rows.map((row) => [row.id, row.name]));
}

export async function toTransferViewOf(q: Queryable, transfer: TransBorrowTransferRow, line: TransferLine): Promise<TransferView> {
  const names = await userNamesOf(q, [transfer.fromUserId, transfer.toUserId]);
  return toTransferView(transfer, line, names);
}
