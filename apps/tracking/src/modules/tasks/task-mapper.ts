import { toQuantityOrZero } from '@wms/platform';
import type { TaskLogRow, TaskRow } from '../../db/schema/index.js';
import type { TaskLogView, TaskView } from './schemas.js';

export interface TaskRecord {
  task: TaskRow;
  serialNumber: string;
  assigneeName: string | null;
}

export function toTaskView({ task, serialNumber, assigneeName }: TaskRecord): TaskView {
  return {
    id: task.id,
    product_id: task.productId,
    product_serial_number: serialNumber,
    title: task.title,
    type: task.type,
    stage: task.stage,
    status: task.status,
    assignee_id: task.assigneeId,
    assignee_name: assigneeName,
    due_date: task.dueDate,
    started_at: task.startedAt?.toISOString() ?? null,
    finished_at: task.finishedAt?.toISOString() ?? null,
    hours: toQuantityOrZero(task.hours),
    created_by: task.createdBy,
    created_at: task.createdAt.toISOString(),
    updated_at: task.updatedAt.toISOString(),
  };
}

export function toTaskLogView(row: { log: TaskLogRow; userName: string }): TaskLogView {
  return {
    id: row.log.id,
    task_id: row.log.taskId,
    user_id: row.log.userId,
    user_name: row.userName,
    action: row.log.action,
    content: row.log.content,
    hours: toQuantityOrZero(row.log.hours),
    created_at: row.log.createdAt.toISOString(),
  };
}
