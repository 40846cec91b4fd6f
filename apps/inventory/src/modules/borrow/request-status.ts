import { BORROW_STATUS, type BorrowStatus } from '../../db/schema/index.js';

/** Display labels of the borrow request status (contract §4; also the audit enum labels). */
export const STATUS_LABELS: Record<BorrowStatus, string> = {
  [BORROW_STATUS.pending]: '待审批',
  [BORROW_STATUS.approved]: '已审批',
  [BORROW_STATUS.rejected]: '已驳回',
  [BORROW_STATUS.dispatched]: '已借出',
  [BORROW_STATUS.finished]: '已完结',
};

export const statusLabel = (status: number) => STATUS_LABELS[status as BorrowStatus] ?? String(status);
