import { eq, sql } from 'drizzle-orm';
import { toDecimalString, type Tx } from '@wms/platform';
import { taskLogs, tasks, type TaskLogAction, type TaskLogRow } from '../../db/schema/index.js';

export interface NewTaskLog {
  taskId: number;
  userId: number;
  action: TaskLogAction;
  content?: string;
  hours?: number;
  now: Date;
}

/**
 * Appends a log and adds its hours to the task's hours, in SQL (numeric, never a float), so a task's
 * hours are always the sum of its logs' hours.
 */
export async function appendTaskLog(tx: Tx, log: NewTaskLog): Promise<TaskLogRow> {
  const hours = toDecimalString(log.hours ?? 0);
  const [row] = await tx
    .insert(taskLogs)
    .values({ taskId: log.taskId, userId: log.userId, action: log.action, content: log.content ?? '', hours, createdAt: log.now })
    .returning();
  if (log.hours) {
    await tx
      .update(tasks)
      .set({ hours: sql`${tasks.hours} + ${hours}::numeric`, updatedAt: log.now })
      .where(eq(tasks.id, log.taskId));
  }
  return row!;
}
