import { and, eq } from 'drizzle-orm';
import { AppError, type Tx } from '@wms/platform';
import type { AnyRequestRow, RequestFlow } from './request-flow.js';

/**
 * What a move may write besides the status (never the id, the status or the creation time): the shared
 * columns of every request, or any column of the flow's own row.
 */
export type RequestChanges<Row extends AnyRequestRow = AnyRequestRow> = Partial<Omit<Row, 'id' | 'status' | 'createdAt'>>;

/** 400 STATUS_NOT_ALLOWED unless the action may start from the request's current status. */
export function assertMayMove<Row extends AnyRequestRow, Action extends string>(
  flow: RequestFlow<Row, unknown, Action>,
  request: Row,
  action: Action,
): void {
  const transition = flow.transitions[action];
  if (!transition.from.includes(request.status)) {
    throw new AppError('STATUS_NOT_ALLOWED', `${flow.noun}当前状态为「${flow.statusLabel(request.status)}」，不能${transition.verb}`, {
      status: request.status,
    });
  }
}

/**
 * Moves the request with `UPDATE … WHERE status = :from RETURNING`: if the status changed since it was
 * read, nothing is written and the caller gets 400 STATUS_NOT_ALLOWED (never a second release).
 */
export async function moveRequest<Row extends AnyRequestRow, Action extends string>(
  tx: Tx,
  flow: RequestFlow<Row, unknown, Action>,
  request: Row,
  action: Action,
  changes: RequestChanges<Row> | RequestChanges,
  now: Date,
): Promise<Row> {
  assertMayMove(flow, request, action);
  const transition = flow.transitions[action];
  const [moved] = await tx
    .update(flow.table)
    // flow.table stores Row, so every key of the changes is a column of it.
    .set({ ...changes, status: transition.to, updatedAt: now } as never)
    .where(and(eq(flow.table.id, request.id), eq(flow.table.status, request.status)))
    .returning();
  if (!moved) throw new AppError('STATUS_NOT_ALLOWED', `${flow.noun}状态已被他人修改，不能${transition.verb}`);
  return moved as Row;
}
