import type { AnyPgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Actor, Queryable } from '@wms/platform';
import type { CloseReason } from '../../db/schema/index.js';
import type { HeldLine, ReservationLine } from '../reservation/index.js';

/**
 * What every stock-holding request stores (outbound, borrow, scrap; spec 2.4): its lines are allocated
 * and reserved at submission, and it moves pending → approved → executed, or is rejected, withdrawn or
 * closed, each move releasing whatever it still reserves. Outbound and borrow lines are allocated stock
 * lines (ReservationLine); a flow whose lines say more (scrap) names its own line type.
 */
export interface RequestRow<Line extends HeldLine = ReservationLine> {
  id: number;
  bizType: string;
  applicantId: number;
  companyName: string;
  status: number;
  itemsJson: Line[];
  remark: string | null;
  rejectReason: string | null;
  closeReason: CloseReason | null;
  approverId: number | null;
  approvedAt: Date | null;
  rejectedAt: Date | null;
  closerId: number | null;
  closedAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

/** Any request row, whatever its line type: what the workflow functions take. */
export type AnyRequestRow = RequestRow<HeldLine>;

/** A request's own table, with the columns the workflow filters on. */
export type RequestTable = PgTable & { id: AnyPgColumn; status: AnyPgColumn; companyName: AnyPgColumn };

export interface Transition {
  from: readonly number[];
  to: number;
  /** What the move is called in a refusal: 「不能审批」. */
  verb: string;
}

/** The moves every request flow has; a flow adds its own execution (出库, 借出, 报废). */
export type DecisionAction = 'approve' | 'reject' | 'withdraw' | 'close';

/** The status values the decision moves need; every request flow numbers them alike (contract §4). */
export interface DecisionStatuses {
  pending: number;
  approved: number;
  rejected: number;
  finished: number;
}

/**
 * The decision moves (spec 3.2, 3.3; contract §4): approve 0 → 1, reject 0 → 2, withdraw 0 or 1 → 4,
 * close 1 → 4. close_reason tells a withdrawal from a closing.
 */
export function decisionTransitions<const S extends DecisionStatuses>(status: S) {
  return {
    approve: { from: [status.pending], to: status.approved, verb: '审批' },
    reject: { from: [status.pending], to: status.rejected, verb: '驳回' },
    withdraw: { from: [status.pending, status.approved], to: status.finished, verb: '撤回' },
    close: { from: [status.approved], to: status.finished, verb: '关闭' },
  } as const;
}

/**
 * Everything that tells one request flow from another. The workflow functions (request-access,
 * transitions, lifecycle) take it first, so a new flow is one such object and its own execution.
 */
export interface RequestFlow<Row extends AnyRequestRow, View, Action extends string = DecisionAction> {
  /** The request's name in messages: 出库申请, 借用申请 (404 「出库申请不存在」). */
  noun: string;
  table: RequestTable;
  /** Every move of the flow; nothing else changes a status. */
  transitions: Readonly<Record<DecisionAction | Action, Transition>>;
  statusLabel(status: number): string;
  /** Who may withdraw somebody else's request (contract §3): SUPER_ADMIN or the flow's approvers. */
  mayWithdrawForOthers(actor: Actor): boolean;
  /**
   * A flow whose approvers are named per request (scrap: allowed_approvers, contract §4) refuses anybody
   * else here, before the status is looked at; the others leave approval to the route's permission code.
   */
  assertMayDecide?(actor: Actor, request: Row): void;
  /** The only way a request of the flow leaves the service. */
  toViewOf(q: Queryable, row: Row): Promise<View>;
}
