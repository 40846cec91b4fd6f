import { asc, inArray } from 'drizzle-orm';
import { toQuantityOrZero, type Queryable } from '@wms/platform';
import { transBorrow, transBorrowReturn, transBorrowTransfer, type TransBorrowRow } from '../../db/schema/index.js';
import { RECEIVER_GONE_REASON } from './line-access.js';
import type { HistoryEventType, HistoryEventView } from './schemas.js';
import { userNamesOf } from './transfer-views.js';

const LABELS: Record<HistoryEventType, string> = {
  dispatch: '借出',
  transfer_initiated: '发起转移',
  transfer_accepted: '接收转移',
  transfer_rejected: '拒绝转移',
  return: '归还',
  split: '拆分',
};

/** Within one instant, the order in which things can only have happened. */
const RANK: Record<HistoryEventType, number> = {
  dispatch: 0,
  split: 1,
  transfer_initiated: 2,
  transfer_accepted: 3,
  transfer_rejected: 3,
  return: 4,
};

interface RawEvent {
  event: HistoryEventType;
  at: Date;
  line: TransBorrowRow;
  actorId: number | null;
  actorFallback: string | null;
  quantity: string;
  fromUserId?: number | null;
  toUserId?: number | null;
  transferId?: number;
  returnId?: number;
  splitBorrowId?: number;
  location?: string | null;
  reason?: string | null;
  remark?: string | null;
  /** tie-breaker inside one instant and kind */
  seq: number;
}

export interface DatedEvent {
  at: Date;
  borrowId: number;
  view: HistoryEventView;
}

/**
 * Every event of the given lines, read from the records themselves (spec 4.3): the dispatch of each
 * line that was dispatched (not split off), transfers initiated and decided, returns, and splits made
 * from the lines. Four queries for any number of lines: transfers, returns, split-off lines, names.
 */
export async function eventsOfLines(q: Queryable, lines: readonly TransBorrowRow[]): Promise<DatedEvent[]> {
  const ids = lines.map((line) => line.id);
  if (ids.length === 0) return [];
  const byId = new Map(lines.map((line) => [line.id, line]));
  const transfers = await q.select().from(transBorrowTransfer).where(inArray(transBorrowTransfer.borrowId, ids)).orderBy(asc(transBorrowTransfer.id));
  const returns = await q.select().from(transBorrowReturn).where(inArray(transBorrowReturn.borrowId, ids)).orderBy(asc(transBorrowReturn.id));
  const children = await q.select().from(transBorrow).where(inArray(transBorrow.splitFromId, ids)).orderBy(asc(transBorrow.id));

  const raw: RawEvent[] = [];
  for (const line of lines) {
    if (line.splitFromId !== null) continue;
    raw.push({
      event: 'dispatch',
      at: line.borrowedAt,
      line,
      actorId: line.dispatchOperatorId,
      actorFallback: line.dispatchOperator,
      quantity: line.initialQuantity,
      toUserId: line.borrowerId,
      location: line.location,
      seq: line.id,
    });
  }
  for (const transfer of transfers) {
    const line = byId.get(transfer.borrowId)!;
    const common = { line, quantity: transfer.quantity, fromUserId: transfer.fromUserId, toUserId: transfer.toUserId, transferId: transfer.id, seq: transfer.id };
    raw.push({ ...common, event: 'transfer_initiated', at: transfer.createdAt, actorId: transfer.fromUserId, actorFallback: null });
    if (transfer.decidedAt && transfer.status !== 'PENDING') {
      const event = transfer.status === 'ACCEPTED' ? 'transfer_accepted' : 'transfer_rejected';
      // a transfer closed because its receiver left was decided by nobody: the system shows as actor
      const byReceiver = !(event === 'transfer_rejected' && transfer.reason === RECEIVER_GONE_REASON);
      const actor = byReceiver ? { actorId: transfer.toUserId, actorFallback: null } : { actorId: null, actorFallback: '系统' };
      raw.push({ ...common, event, at: transfer.decidedAt, ...actor, reason: transfer.reason });
    }
  }
  for (const back of returns) {
    raw.push({
      event: 'return',
      at: back.createdAt,
      line: byId.get(back.borrowId)!,
      actorId: back.operatorId,
      actorFallback: back.operator,
      quantity: back.quantity,
      returnId: back.id,
      location: back.location,
      remark: back.remark,
      seq: back.id,
    });
  }
  for (const child of children) {
    raw.push({
      event: 'split',
      at: child.splitAt ?? child.createdAt,
      line: byId.get(child.splitFromId!)!,
      actorId: child.splitOperatorId,
      actorFallback: child.splitOperator,
      quantity: child.initialQuantity,
      splitBorrowId: child.id,
      seq: child.id,
    });
  }

  const names = await userNamesOf(q, raw.flatMap((event) => [event.actorId, event.fromUserId, event.toUserId]));
  const nameOf = (id: number | null | undefined) => (id === null || id === undefined ? null : (names.get(id) ?? null));
  return sortEvents(raw).map((event) => ({
    at: event.at,
    borrowId: event.line.id,
    view: {
      event: event.event,
      label: LABELS[event.event],
      at: event.at.toISOString(),
      borrow_id: event.line.id,
      borrow_no: event.line.borrowNo,
      material_name: event.line.materialName,
      sku: event.line.sku,
      actor_id: event.actorId,
      actor_name: nameOf(event.actorId) ?? event.actorFallback,
      quantity: toQuantityOrZero(event.quantity),
      from_user_id: event.fromUserId ?? null,
      from_user_name: nameOf(event.fromUserId),
      to_user_id: event.toUserId ?? null,
      to_user_name: nameOf(event.toUserId),
      transfer_id: event.transferId ?? null,
      return_id: event.returnId ?? null,
      split_borrow_id: event.splitBorrowId ?? null,
      location: event.location ?? null,
      reason: event.reason ?? null,
      remark: event.remark ?? null,
    },
  }));
}

/** By the real timestamp; inside one instant by what must come first, then by record id. */
function sortEvents(events: RawEvent[]): RawEvent[] {
  return events.sort(
    (a, b) => a.at.getTime() - b.at.getTime() || RANK[a.event] - RANK[b.event] || a.line.id - b.line.id || a.seq - b.seq,
  );
}
