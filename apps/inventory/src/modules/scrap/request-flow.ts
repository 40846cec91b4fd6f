import { SCRAP_STATUS, scrapRequests, type ScrapRequestRow } from '../../db/schema/index.js';
import { decisionTransitions, type RequestFlow } from '../request-workflow/request-flow.js';
import { assertAllowedApprover, mayWithdrawForOthers } from './request-access.js';
import { statusLabel } from './request-status.js';
import { toScrapRequestViewOf } from './request-views.js';
import type { ScrapRequestView } from './schemas.js';

/**
 * Every move of a scrap request (spec 3.7, contract §4). Nothing else changes a status. Scrap has no
 * closing by the warehouse: an approved request is executed, rejected before, or withdrawn (→ 4).
 */
export const SCRAP_TRANSITIONS = {
  ...decisionTransitions(SCRAP_STATUS),
  execute: { from: [SCRAP_STATUS.approved], to: SCRAP_STATUS.executed, verb: '执行报废' },
} as const;

export type ScrapAction = keyof typeof SCRAP_TRANSITIONS;

/** The scrap request flow, as the shared request workflow (modules/request-workflow) sees it. */
export const scrapFlow: RequestFlow<ScrapRequestRow, ScrapRequestView, ScrapAction> = {
  noun: '报废申请',
  table: scrapRequests,
  transitions: SCRAP_TRANSITIONS,
  statusLabel,
  mayWithdrawForOthers,
  assertMayDecide: assertAllowedApprover,
  toViewOf: toScrapRequestViewOf,
};
