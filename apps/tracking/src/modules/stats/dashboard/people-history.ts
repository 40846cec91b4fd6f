import { and, count, desc, eq, sql, type SQL } from 'drizzle-orm';
import { pageOf, pagingOf, sheetOf, toQuantityOrZero, writeWorkbook, type Queryable, type SheetColumn } from '@wms/platform';
import { products, taskLogs, tasks, users } from '../../../db/schema/index.js';
import type { TrackingContext } from '../../identity/data-scope.js';
import { PHASE_LABELS } from '../../identity/data-scope.js';
import { selectActivity, toActivityView, type ActivityView } from '../activity.js';
import { dateRangeOf, productFilterOf, rangeView, withinRange, type DateRange } from '../stats-filters.js';
import type { PeopleHistoryFilter, PeopleHistoryQuery, PersonSummaryView } from './schemas.js';

/**
 * The people history: who worked on what (task logs) in a Beijing date range (default: the last 30
 * days), with a per-person summary. Logs count only when their task's product is in the caller's scope.
 * The list and the xlsx export share this filter.
 */
async function historyFilterOf(ctx: TrackingContext, filter: PeopleHistoryFilter): Promise<{ range: DateRange; where: SQL | undefined }> {
  const range = dateRangeOf(filter, ctx.now);
  const where = and(
    productFilterOf(await ctx.dataScope()),
    withinRange(taskLogs.createdAt, range),
    filter.user_id ? eq(taskLogs.userId, filter.user_id) : undefined,
    filter.action ? eq(taskLogs.action, filter.action) : undefined,
  );
  return { range, where };
}

/** Per person, most hours first; one grouped query. */
async function peopleSummary(q: Queryable, where: SQL | undefined): Promise<PersonSummaryView[]> {
  const hours = sql<string>`coalesce(sum(${taskLogs.hours}), 0)`;
  const rows = await q
    .select({
      userId: taskLogs.userId,
      name: users.name,
      logs: count(),
      tasks: sql<number>`count(distinct ${taskLogs.taskId})`.mapWith(Number),
      finished: sql<number>`count(distinct ${taskLogs.taskId}) filter (where ${taskLogs.action} = 'FINISH')`.mapWith(Number),
      hours,
      last: sql<Date>`max(${taskLogs.createdAt})`.mapWith(taskLogs.createdAt),
    })
    .from(taskLogs)
    .innerJoin(tasks, eq(tasks.id, taskLogs.taskId))
    .innerJoin(products, eq(products.id, tasks.productId))
    .innerJoin(users, eq(users.id, taskLogs.userId))
    .where(where)
    .groupBy(taskLogs.userId, users.name)
    .orderBy(desc(hours), desc(count()), users.name);
  return rows.map((row) => ({
    user_id: row.userId,
    name: row.name,
    logs: row.logs,
    tasks: row.tasks,
    tasks_finished: row.finished,
    hours: toQuantityOrZero(row.hours),
    last_activity_at: row.last.toISOString(),
  }));
}

/** GET /dashboard/people-history */
export async function peopleHistory(ctx: TrackingContext, query: PeopleHistoryQuery) {
  const paging = pagingOf(query);
  const { range, where } = await historyFilterOf(ctx, query);
  return ctx.read(async (q) => {
    const rows = await selectActivity(q).where(where).orderBy(desc(taskLogs.createdAt), desc(taskLogs.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q
      .select({ n: count() })
      .from(taskLogs)
      .innerJoin(tasks, eq(tasks.id, taskLogs.taskId))
      .innerJoin(products, eq(products.id, tasks.productId))
      .where(where);
    const people = await peopleSummary(q, where);
    return { ...rangeView(range), ...pageOf(rows.map(toActivityView), total?.n ?? 0, paging), people };
  });
}

export const PEOPLE_HISTORY_FILE_NAME = '人员工作记录.xlsx';

// Times are date cells showing Beijing time (writeWorkbook); widths follow the content.
const RECORD_SHEET: SheetColumn<ActivityView>[] = [
  { header: '时间（北京）', type: 'datetime', value: (row) => row.created_at },
  { header: '人员', type: 'text', value: (row) => row.user_name },
  { header: '动作', type: 'text', value: (row) => row.action_label },
  { header: '任务', type: 'text', value: (row) => row.task_title },
  { header: '产品序列号', type: 'text', value: (row) => row.serial_number },
  { header: '型号', type: 'text', value: (row) => row.model },
  { header: '阶段', type: 'text', value: (row) => PHASE_LABELS[row.lifecycle_phase] },
  { header: '工时', type: 'number', value: (row) => row.hours },
  { header: '内容', type: 'text', width: 40, value: (row) => row.content },
];

const PEOPLE_SHEET: SheetColumn<PersonSummaryView>[] = [
  { header: '人员', type: 'text', value: (row) => row.name },
  { header: '日志条数', type: 'number', value: (row) => row.logs },
  { header: '涉及任务数', type: 'number', value: (row) => row.tasks },
  { header: '完成任务数', type: 'number', value: (row) => row.tasks_finished },
  { header: '工时合计', type: 'number', value: (row) => row.hours },
  { header: '最近活动（北京）', type: 'datetime', value: (row) => row.last_activity_at },
];

/**
 * GET /dashboard/people-history/export: the list's filter without paging, as xlsx with two sheets
 * (工作记录: every log, newest first; 人员汇总: the per-person summary). Same scope as the list.
 */
export async function exportPeopleHistory(ctx: TrackingContext, filter: PeopleHistoryFilter): Promise<Buffer> {
  const { where } = await historyFilterOf(ctx, filter);
  const { records, people } = await ctx.read(async (q) => ({
    records: (await selectActivity(q).where(where).orderBy(desc(taskLogs.createdAt), desc(taskLogs.id))).map(toActivityView),
    people: await peopleSummary(q, where),
  }));
  return writeWorkbook([
    sheetOf({ name: '工作记录', columns: RECORD_SHEET, rows: records }),
    sheetOf({ name: '人员汇总', columns: PEOPLE_SHEET, rows: people }),
  ]);
}
