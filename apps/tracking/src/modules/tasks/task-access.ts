import { and, eq } from 'drizzle-orm';
import { forbidden, notFound, validationFailed, type Queryable, type Tx } from '@wms/platform';
import { products, tasks, users, type LifecyclePhase, type TaskRow } from '../../db/schema/index.js';
import { scopeShows, type DataScope } from '../identity/data-scope.js';
import { inDepartment } from '../identity/department.js';
import { assertOperable } from '../products/product-scope.js';
import type { TaskRecord } from './task-mapper.js';

/** Tasks with what their view shows: the product's serial and the assignee's name (one query). */
export function selectTaskRecords(q: Queryable) {
  return q
    .select({ task: tasks, serialNumber: products.serialNumber, assigneeName: users.name })
    .from(tasks)
    .innerJoin(products, eq(products.id, tasks.productId))
    .leftJoin(users, eq(users.id, tasks.assigneeId));
}

export async function taskRecordOf(q: Queryable, id: number): Promise<TaskRecord> {
  const [record] = await selectTaskRecords(q).where(eq(tasks.id, id));
  if (!record) throw notFound('任务');
  return record;
}

export interface LockedTask {
  task: TaskRow;
  phase: LifecyclePhase;
  serialNumber: string;
}

/** Locks a task for a write; its product must be in the caller's scope (403 otherwise). */
export async function lockOperableTask(tx: Tx, scope: DataScope, id: number): Promise<LockedTask> {
  const [row] = await tx
    .select({ task: tasks, phase: products.lifecyclePhase, serialNumber: products.serialNumber })
    .from(tasks)
    .innerJoin(products, eq(products.id, tasks.productId))
    .where(eq(tasks.id, id))
    .for('update', { of: tasks });
  if (!row) throw notFound('任务');
  assertOperable(scope, row.phase, row.serialNumber);
  return row;
}

/** Tasks are read inside the scope: a task of a product outside it is 403 (the list does not show it either). */
export async function assertTaskVisible(q: Queryable, scope: DataScope, id: number): Promise<void> {
  const [row] = await q
    .select({ phase: products.lifecyclePhase })
    .from(tasks)
    .innerJoin(products, eq(products.id, tasks.productId))
    .where(eq(tasks.id, id));
  if (!row) throw notFound('任务');
  if (!scopeShows(scope, row.phase)) throw forbidden('该任务所属产品不在您的数据范围内');
}

/** An assignee is an active account of the department; anything else is 422 naming assignee_id. */
export async function assertAssignable(tx: Tx, department: string, userId: number): Promise<void> {
  const [user] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.id, userId), eq(users.active, true), inDepartment(users.department, department)));
  if (!user) throw validationFailed(`负责人 ${userId} 不存在或已停用`, { field: 'assignee_id' });
}
