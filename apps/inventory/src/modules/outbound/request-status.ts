import { OUTBOUND_STATUS, type OutboundStatus } from '../../db/schema/index.js';

/** Display labels of the request status (contract §4; also the audit enum labels). */
export const STATUS_LABELS: Record<OutboundStatus, string> = {
  [OUTBOUND_STATUS.pending]: '待审批',
  [OUTBOUND_STATUS.approved]: '已审批',
  [OUTBOUND_STATUS.rejected]: '已驳回',
  [OUTBOUND_STATUS.executed]: '已出库',
  [OUTBOUND_STATUS.finished]: '已完结',
};

/** Statuses in which a request's reservation is open (ledger identity, contract §8). */
export const OPEN_STATUSES: readonly OutboundStatus[] = [OUTBOUND_STATUS.pending, OUTBOUND_STATUS.approved];

export const statusLabel = (status: number) => STATUS_LABELS[status as OutboundStatus] ?? String(status);
