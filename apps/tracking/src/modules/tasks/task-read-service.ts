import { and, asc, count, desc, eq, type SQL } from 'drizzle-orm';
import { keywordMatch, pageOf, pagingOf, timeRangeCondition } from '@wms/platform';
import { products, taskLogs, tasks, users } from '../../db/schema/index.js';
import type { TrackingContext } from '../identity/data-scope.js';
import { productScopeCondition } from '../products/product-scope.js';
import { assertTaskVisible, selectTaskRecords, taskRecordOf } from './task-access.js';
import { toTaskLogView, toTaskView } from './task-mapper.js';
import type { TaskListQuery, TaskLogListQuery } from './schemas.js';

/**
 * The one WHERE of the task list and its total, over tasks joined to their product: the data scope is
 * part of it (spec 4.3), so total and page always agree.
 */
function taskWhere(scopeCondition: SQL | undefined, query: TaskListQuery): SQL | undefined {
  const conditions: (SQL | undefined)[] = [scopeCondition];
  conditions.push(keywordMatch(query.keyword, tasks.title, products.serialNumber));
  if (query.product_id) conditions.push(eq(tasks.productId, query.product_id));
  if (query.status) conditions.push(eq(tasks.status, query.status));
  if (query.type) conditions.push(eq(tasks.type, query.type));
  if (query.stage) conditions.push(eq(tasks.stage, query.stage));
  if (query.assignee_id) conditions.push(eq(tasks.assigneeId, query.assignee_id));
  if (query.lifecycle_phase) conditions.push(eq(products.lifecyclePhase, query.lifecycle_phase));
  // contract §8: start_date / end_date of a list; a bare date is a Beijing day, the end day whole
  conditions.push(timeRangeCondition(tasks.createdAt, query.start_date, query.end_date));
  return and(...conditions);
}

/** Newest first. */
export async function listTasks(ctx: TrackingContext, query: TaskListQuery) {
  const paging = pagingOf(query);
  const where = taskWhere(productScopeCondition(await ctx.dataScope()), query);
  return ctx.read(async (q) => {
    const rows = await selectTaskRecords(q).where(where).orderBy(desc(tasks.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(tasks).innerJoin(products, eq(products.id, tasks.productId)).where(where);
    return pageOf(rows.map(toTaskView), total?.n ?? 0, paging);
  });
}

export async function getTask(ctx: TrackingContext, id: number) {
  const scope = await ctx.dataScope();
  return ctx.read(async (q) => {
    await assertTaskVisible(q, scope, id);
    return toTaskView(await taskRecordOf(q, id));
  });
}

/** A task's logs in the order they were written; keyword on the content or the writer's name or username. */
export async function listTaskLogs(ctx: TrackingContext, taskId: number, query: TaskLogListQuery) {
  const paging = pagingOf(query);
  const scope = await ctx.dataScope();
  const where = and(
    eq(taskLogs.taskId, taskId),
    keywordMatch(query.keyword, taskLogs.content, users.name, users.username),
    timeRangeCondition(taskLogs.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    await assertTaskVisible(q, scope, taskId);
    const rows = await q
      .select({ log: taskLogs, userName: users.name })
      .from(taskLogs)
      .innerJoin(users, eq(users.id, taskLogs.userId))
      .where(where)
      .orderBy(asc(taskLogs.id))
      .limit(paging.limit)
      .offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(taskLogs).innerJoin(users, eq(users.id, taskLogs.userId)).where(where);
    return pageOf(rows.map(toTaskLogView), total?.n ?? 0, paging);
  });
}
