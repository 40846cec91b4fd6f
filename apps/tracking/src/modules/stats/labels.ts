import type { TaskType } from '../../db/schema/index.js';

/** Display labels of task types in statistics and option lists. */
export const TASK_TYPE_LABELS: Readonly<Record<TaskType, string>> = {
  PRODUCTION: '生产',
  INSPECTION: '检验',
  REPAIR: '维修',
  AFTER_SALES: '售后',
};
