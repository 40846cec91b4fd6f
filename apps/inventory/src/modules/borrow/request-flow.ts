import { BORROW_STATUS, borrowRequests, type BorrowRequestRow } from '../../db/schema/index.js';
import { decisionTransitions, type RequestFlow } from '../request-workflow/request-flow.js';
import { mayWithdrawForOthers } from './request-access.js';
import { statusLabel } from './request-status.js';
import { toRequestViewOf } from './request-views.js';
import type { BorrowRequestView } from './schemas.js';

/** Every move of a borrow request (spec 3.3, contract §4). Nothing else changes a status. */
export const BORROW_TRANSITIONS = {
  ...decisionTransitions(BORROW_STATUS),
  dispatch: { from: [BORROW_STATUS.approved], to: BORROW_STATUS.dispatched, verb: '借出' },
} as const;

export type BorrowAction = keyof typeof BORROW_TRANSITIONS;

/** The borrow request flow, as the shared request workflow (modules/request-workflow) sees it. */
export const borrowFlow: RequestFlow<BorrowRequestRow, BorrowRequestView, BorrowAction> = {
  noun: '借用申请',
  table: borrowRequests,
  transitions: BORROW_TRANSITIONS,
  statusLabel,
  mayWithdrawForOthers,
  toViewOf: toRequestViewOf,
};
