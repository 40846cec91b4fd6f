import { OUTBOUND_STATUS, outboundRequests, type OutboundRequestRow } from '../../db/schema/index.js';
import { decisionTransitions, type RequestFlow } from '../request-workflow/request-flow.js';
import { mayWithdrawForOthers } from './request-access.js';
import { toRequestViewOf } from './request-lookups.js';
import { statusLabel } from './request-status.js';
import type { OutboundRequestView } from './schemas.js';

/**
 * Every move of an outbound request (spec 3.2, contract §4). Nothing else changes a status.
 * Submission creates status 0 (a reissue from a return is created at 1 by the returns flow).
 */
export const REQUEST_TRANSITIONS = {
  ...decisionTransitions(OUTBOUND_STATUS),
  execute: { from: [OUTBOUND_STATUS.approved], to: OUTBOUND_STATUS.executed, verb: '出库' },
} as const;

export type RequestAction = keyof typeof REQUEST_TRANSITIONS;

/** The outbound request flow, as the shared request workflow (modules/request-workflow) sees it. */
export const outboundFlow: RequestFlow<OutboundRequestRow, OutboundRequestView, RequestAction> = {
  noun: '出库申请',
  table: outboundRequests,
  transitions: REQUEST_TRANSITIONS,
  statusLabel,
  mayWithdrawForOthers,
  toViewOf: toRequestViewOf,
};
