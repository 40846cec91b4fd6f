import { and, eq, sql } from 'drizzle-orm';
import { AppError, type Tx } from '@wms/platform';
import { tasks, type TaskRow, type TaskStatus } from '../../db/schema/index.js';

const STATUS_LABELS: Readonly<Record<TaskStatus, string>> = { TODO: '待办', IN_PROGRESS: '进行中', DONE: '已完成' };

/**
 * Every status move of a task. START and FINISH logs make the first two; PATCH status makes any of them
 * and writes the matching log. started_at is the first start (kept on reopen), finished_at the last
 * finish; finishing a task that never started stamps both; going back to TODO clears both.
 */
export const TASK_MOVES = {
  start: { from: ['TODO', 'DONE'], to: 'IN_PROGRESS', verb: '开始' },
  finish: { from: ['TODO', 'IN_PROGRESS'], to: 'DONE', verb: '完成' },
  reset: { from: ['IN_PROGRESS', 'DONE'], to: 'TODO', verb: '退回待办' },
} as const satisfies Record<string, { from: readonly TaskStatus[]; to: TaskStatus; verb: string }>;

export type TaskMove = keyof typeof TASK_MOVES;

/** The move that brings a task to `to` (PATCH status). */
export function moveTo(to: TaskStatus): TaskMove {
  if (to === 'IN_PROGRESS') return 'start';
  if (to === 'DONE') return 'finish';
  return 'reset';
}

function timesOf(move: TaskMove, now: Date) {
  switch (move) {
    case 'start':
      return { startedAt: sql`coalesce(${tasks.startedAt}, ${now.toISOString()}::timestamptz)`, finishedAt: null };
    case 'finish':
      return { startedAt: sql`coalesce(${tasks.startedAt}, ${now.toISOString()}::timestamptz)`, finishedAt: now };
    case 'reset':
      return { startedAt: null, finishedAt: null };
  }
}

/** `UPDATE … WHERE status = :from`: a task moved by someone else in between is 409 CONFLICT. */
export async function moveTask(tx: Tx, task: TaskRow, move: TaskMove, now: Date): Promise<TaskRow> {
  const transition = TASK_MOVES[move];
  if (!(transition.from as readonly TaskStatus[]).includes(task.status)) {
    throw new AppError('STATUS_NOT_ALLOWED', `任务当前状态为「${STATUS_LABELS[task.status]}」，不能${transition.verb}`, { status: task.status });
  }
  const [moved] = await tx
    .update(tasks)
    .set({ status: transition.to, ...timesOf(move, now), updatedAt: now })
    .where(and(eq(tasks.id, task.id), eq(tasks.status, task.status)))
    .returning();
  if (!moved) throw new AppError('CONFLICT', '任务状态已被他人修改，请刷新后重试');
  return moved;
}

export const statusLabel = (status: TaskStatus) => STATUS_LABELS[status];
