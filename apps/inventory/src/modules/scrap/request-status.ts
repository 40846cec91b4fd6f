import { SCRAP_STATUS, type ScrapStatus } from '../../db/schema/index.js';

/** Display labels of the scrap request status (contract §4; also the audit enum labels). */
export const STATUS_LABELS: Record<ScrapStatus, string> = {
  [SCRAP_STATUS.pending]: '待审批',
  [SCRAP_STATUS.approved]: '已审批',
  [SCRAP_STATUS.rejected]: '已驳回',
  [SCRAP_STATUS.executed]: '已执行',
  [SCRAP_STATUS.finished]: '已撤回',
};

export const statusLabel = (status: number) => STATUS_LABELS[status as ScrapStatus] ?? String(status);
