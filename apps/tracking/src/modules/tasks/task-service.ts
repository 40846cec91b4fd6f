import { eq } from 'drizzle-orm';
import { requirePatchedField, validationFailed, type Tx } from '@wms/platform';
import { products, tasks, type TaskRow, type TaskStatus } from '../../db/schema/index.js';
import type { TrackingContext } from '../identity/data-scope.js';
import { assertOperable } from '../products/product-scope.js';
import { remindUser } from '../reminders/reminder-service.js';
import { assertAssignable, lockOperableTask, taskRecordOf } from './task-access.js';
import { appendTaskLog } from './task-log-writer.js';
import { toTaskView } from './task-mapper.js';
import { moveTask, moveTo, statusLabel } from './task-status.js';
import type { CreateTaskBody, UpdateTaskBody } from './schemas.js';

async function remindAssignee(tx: Tx, task: TaskRow, serialNumber: string, now: Date): Promise<void> {
  if (task.assigneeId === null) return;
  await remindUser(tx, { userId: task.assigneeId, taskId: task.id, content: `新任务指派给您：${task.title}（产品 ${serialNumber}）`, now });
}

/**
 * Creates a task on a product in the caller's scope (403 otherwise), logs CREATE, and reminds the
 * assignee. Without a type, an after-sales product's task is AFTER_SALES, any other PRODUCTION.
 */
export async function createTask(ctx: TrackingContext, input: CreateTaskBody) {
  const scope = await ctx.dataScope();
  return ctx.transaction(async (tx) => {
    // FOR SHARE: the product's phase (the scope check) cannot change before the task is in
    const [product] = await tx.select().from(products).where(eq(products.id, input.product_id)).for('share');
    if (!product) throw validationFailed(`产品 ${input.product_id} 不存在`, { field: 'product_id' });
    assertOperable(scope, product.lifecyclePhase, product.serialNumber);
    if (input.assignee_id) await assertAssignable(tx, ctx.actor.company ?? '', input.assignee_id);
    const [task] = await tx
      .insert(tasks)
      .values({
        productId: product.id,
        title: input.title.trim(),
        type: input.type ?? (product.lifecyclePhase === 'AFTER_SALES' ? 'AFTER_SALES' : 'PRODUCTION'),
        stage: input.stage ?? null,
        assigneeId: input.assignee_id ?? null,
        dueDate: input.due_date ?? null,
        createdBy: ctx.actor.id,
        createdAt: ctx.now,
        updatedAt: ctx.now,
      })
      .returning();
    await appendTaskLog(tx, { taskId: task!.id, userId: ctx.actor.id, action: 'CREATE', content: `创建任务：${task!.title}`, now: ctx.now });
    await remindAssignee(tx, task!, product.serialNumber, ctx.now);
    return toTaskView(await taskRecordOf(tx, task!.id));
  });
}

type TaskChanges = Partial<Pick<TaskRow, 'title' | 'type' | 'stage' | 'assigneeId' | 'dueDate'>>;

function fieldChangesOf(current: TaskRow, input: UpdateTaskBody): TaskChanges {
  const changes: TaskChanges = {};
  if (input.title !== undefined && input.title.trim() !== current.title) changes.title = input.title.trim();
  if (input.type !== undefined && input.type !== current.type) changes.type = input.type;
  if (input.stage !== undefined && input.stage !== current.stage) changes.stage = input.stage;
  if (input.assignee_id !== undefined && input.assignee_id !== current.assigneeId) changes.assigneeId = input.assignee_id;
  if (input.due_date !== undefined && input.due_date !== current.dueDate) changes.dueDate = input.due_date;
  return changes;
}

/** A status set by PATCH moves like a START / FINISH log and leaves the same trace in the log. */
async function applyStatus(tx: Tx, ctx: TrackingContext, task: TaskRow, to: TaskStatus): Promise<TaskRow> {
  const move = moveTo(to);
  const moved = await moveTask(tx, task, move, ctx.now);
  const action = move === 'start' ? 'START' : move === 'finish' ? 'FINISH' : 'COMMENT';
  await appendTaskLog(tx, { taskId: task.id, userId: ctx.actor.id, action, content: `状态改为${statusLabel(to)}`, now: ctx.now });
  return moved;
}

/**
 * PATCH /tasks/{id}: the task's product must be in the caller's scope (403). A new assignee gets a
 * reminder. Values equal to the stored ones write nothing; hours are not editable (sum of the logs).
 */
export async function updateTask(ctx: TrackingContext, id: number, input: UpdateTaskBody) {
  // unknown fields (hours among them) are dropped after the schema's "at least one property" check
  requirePatchedField(input, ['title', 'type', 'stage', 'status', 'assignee_id', 'due_date']);
  const scope = await ctx.dataScope();
  return ctx.transaction(async (tx) => {
    const { task: current, serialNumber } = await lockOperableTask(tx, scope, id);
    const changes = fieldChangesOf(current, input);
    if (changes.assigneeId) await assertAssignable(tx, ctx.actor.company ?? '', changes.assigneeId);
    let task = current;
    if (Object.keys(changes).length > 0) {
      [task] = (await tx.update(tasks).set({ ...changes, updatedAt: ctx.now }).where(eq(tasks.id, id)).returning()) as [TaskRow];
      if (changes.assigneeId) await remindAssignee(tx, task, serialNumber, ctx.now);
    }
    if (input.status !== undefined && input.status !== task.status) await applyStatus(tx, ctx, task, input.status);
    return toTaskView(await taskRecordOf(tx, id));
  });
}
