import { eq } from 'drizzle-orm';
import { Type, type Static } from 'typebox';
import { toQuantityOrZero, type Queryable } from '@wms/platform';
import { products, taskLogs, tasks, users, type TaskLogAction } from '../../db/schema/index.js';
import { LifecyclePhaseSchema } from '../products/schemas.js';

/**
 * One task log as the statistics show it: who did what, on which task and product. Used by the people
 * history (and its export), the recent activity and the device record.
 */
export const ACTION_LABELS: Readonly<Record<TaskLogAction, string>> = {
  CREATE: '创建',
  START: '开始',
  PROGRESS: '进展',
  FINISH: '完成',
  COMMENT: '备注',
};

export const ActivityView = Type.Object({
  id: Type.Integer({ description: '任务日志 id' }),
  created_at: Type.String(),
  user_id: Type.Integer(),
  user_name: Type.String(),
  action: Type.String({ description: 'CREATE, START, PROGRESS, FINISH, COMMENT' }),
  action_label: Type.String(),
  content: Type.String(),
  hours: Type.Number(),
  task_id: Type.Integer(),
  task_title: Type.String(),
  product_id: Type.Integer(),
  serial_number: Type.String(),
  model: Type.String(),
  lifecycle_phase: LifecyclePhaseSchema,
});
export type ActivityView = Static<typeof ActivityView>;

/** Task logs joined to their task, product (where the scope filter applies) and author. */
export function selectActivity(q: Queryable) {
  return q
    .select({
      id: taskLogs.id,
      createdAt: taskLogs.createdAt,
      userId: taskLogs.userId,
      userName: users.name,
      action: taskLogs.action,
      content: taskLogs.content,
      hours: taskLogs.hours,
      taskId: tasks.id,
      taskTitle: tasks.title,
      productId: products.id,
      serialNumber: products.serialNumber,
      model: products.model,
      lifecyclePhase: products.lifecyclePhase,
    })
    .from(taskLogs)
    .innerJoin(tasks, eq(tasks.id, taskLogs.taskId))
    .innerJoin(products, eq(products.id, tasks.productId))
    .innerJoin(users, eq(users.id, taskLogs.userId));
}

export type ActivityRow = Awaited<ReturnType<typeof selectActivity>>[number];

export function toActivityView(row: ActivityRow): ActivityView {
  return {
    id: row.id,
    created_at: row.createdAt.toISOString(),
    user_id: row.userId,
    user_name: row.userName,
    action: row.action,
    action_label: ACTION_LABELS[row.action] ?? row.action,
    content: row.content,
    hours: toQuantityOrZero(row.hours),
    task_id: row.taskId,
    task_title: row.taskTitle,
    product_id: row.productId,
    serial_number: row.serialNumber,
    model: row.model,
    lifecycle_phase: row.lifecyclePhase,
  };
}
