import { eq } from 'drizzle-orm';
import { Decimal, validationFailed } from '@wms/platform';
import { users } from '../../db/schema/index.js';
import type { TrackingContext } from '../identity/data-scope.js';
import { lockOperableTask } from './task-access.js';
import { appendTaskLog } from './task-log-writer.js';
import { toTaskLogView } from './task-mapper.js';
import { moveTask } from './task-status.js';
import type { CreateTaskLogBody } from './schemas.js';

/** Hours are stored with two decimals (numeric(10,2)): a finer value would be rounded silently, so it is refused. */
function assertHoursPrecision(hours: number | undefined): void {
  if (hours === undefined || new Decimal(hours).decimalPlaces() <= 2) return;
  throw validationFailed(`字段 hours 最多两位小数，收到 ${hours}`, { field: 'hours' });
}

/**
 * POST /tasks/{id}/logs, a write on the task (403 outside the caller's scope). START and FINISH move
 * the task (TASK_MOVES; a move the status does not allow is 400 STATUS_NOT_ALLOWED and writes no
 * log); PROGRESS and COMMENT leave the status alone. Any log's hours add to the task's hours.
 */
export async function addTaskLog(ctx: TrackingContext, taskId: number, input: CreateTaskLogBody) {
  assertHoursPrecision(input.hours);
  const scope = await ctx.dataScope();
  return ctx.transaction(async (tx) => {
    const { task } = await lockOperableTask(tx, scope, taskId);
    if (input.action === 'START') await moveTask(tx, task, 'start', ctx.now);
    if (input.action === 'FINISH') await moveTask(tx, task, 'finish', ctx.now);
    const log = await appendTaskLog(tx, {
      taskId,
      userId: ctx.actor.id,
      action: input.action,
      content: input.content?.trim() ?? '',
      hours: input.hours,
      now: ctx.now,
    });
    const [user] = await tx.select({ name: users.name }).from(users).where(eq(users.id, ctx.actor.id));
    return toTaskLogView({ log, userName: user?.name ?? ctx.actor.name });
  });
}
