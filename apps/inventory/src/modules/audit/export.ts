import type { Readable } from 'node:stream';
import type { SQL } from 'drizzle-orm';
import { type SheetColumn, sheetOf, type SheetSpec, SpooledSheet, streamWorkbook, type UseCaseContext } from '@wms/platform';
import { ACTION_LABELS, AUDIT_ACTIONS } from './actions.js';
import { auditFilterOf, describeFilter } from './filters.js';
import { fieldLabel, isHiddenField } from './labels.js';
import type { AuditLookups } from './lookups.js';
import { auditEntries, planExport, type ExportPlan } from './record-batches.js';
import type { AuditRecord } from './records.js';
import { CREDENTIAL_PLACEHOLDER } from './sanitise.js';
import type { AuditFilterQuery, AuditLogView } from './schemas.js';
import { displayValue, SUMMARY_MAX_LENGTH } from './summaries.js';

/** spec 8: at most this many records per export; a larger result is cut and says so in the file name and the summary sheet. */
export const AUDIT_EXPORT_CAP = 100_000;

/** The columns of one audit record, shared by the export and the daily report. */
export const LOG_COLUMNS: SheetColumn<AuditLogView>[] = [
  { header: '日志ID', type: 'number', value: (view) => view.id },
  { header: '时间', type: 'datetime', value: (view) => view.time },
  { header: '模块', type: 'text', value: (view) => view.module_label },
  { header: '操作', type: 'text', value: (view) => view.action_label ?? view.action },
  { header: '对象ID', type: 'text', value: (view) => view.target_id ?? '' },
  { header: '对象名称', type: 'text', value: (view) => view.target_name ?? '' },
  { header: '对象', type: 'text', value: (view) => view.target_display ?? '' },
  { header: '摘要', type: 'text', width: 60, value: (view) => view.summary },
  { header: '操作人', type: 'text', value: (view) => view.username },
  { header: '姓名', type: 'text', value: (view) => view.user_display ?? '' },
  { header: '公司', type: 'text', value: (view) => view.company_name ?? '' },
  { header: '来源', type: 'text', value: (view) => view.source ?? '' },
];

interface ChangeRow {
  view: AuditLogView;
  field: string;
  old: string;
  new: string;
}

const CHANGE_COLUMNS: SheetColumn<ChangeRow>[] = [
  { header: '日志ID', type: 'number', value: (row) => row.view.id },
  { header: '时间', type: 'datetime', value: (row) => row.view.time },
  { header: '模块', type: 'text', value: (row) => row.view.module_label },
  { header: '对象ID', type: 'text', value: (row) => row.view.target_id ?? '' },
  { header: '对象名称', type: 'text', value: (row) => row.view.target_name ?? '' },
  { header: '对象', type: 'text', value: (row) => row.view.target_display ?? '' },
  { header: '字段', type: 'text', value: (row) => row.field },
  { header: '字段名称', type: 'text', value: (row) => fieldLabel(row.view.module, row.field) },
  { header: '原值', type: 'text', value: (row) => row.old },
  { header: '新值', type: 'text', value: (row) => row.new },
  { header: '操作人', type: 'text', value: (row) => row.view.username },
  { header: '姓名', type: 'text', value: (row) => row.view.user_display ?? '' },
];

/** The views of the planned records, newest first, streamed batch by batch. */
export async function* planViews(ctx: UseCaseContext, where: SQL | undefined, plan: ExportPlan): AsyncGenerator<AuditLogView> {
  for await (const entry of auditEntries(ctx, where, plan)) yield entry.view;
}

/** One row per visible changed field of an update (the changes of other records are not listed). */
function changeRowsOf(record: AuditRecord, view: AuditLogView, lookups: AuditLookups): ChangeRow[] {
  const rows: ChangeRow[] = [];
  if (record.action !== 'UPDATE') return rows;
  for (const change of record.changes) {
    if (isHiddenField(change.field)) continue;
    if (change.field === CREDENTIAL_PLACEHOLDER) {
      rows.push({ view, field: change.field, old: '', new: '已修改' }); // the value is never recorded
      continue;
    }
    const show = (value: unknown) => displayValue(record.row.module, change.field, value, lookups);
    rows.push({ view, field: change.field, old: show(change.old), new: show(change.new) });
  }
  return rows;
}

/**
 * The views of the planned records for 审计日志, handing each record's change rows to 变更明细 on
 * the way: one read of the records fills both sheets.
 */
async function* viewsFeedingChanges(ctx: UseCaseContext, where: SQL | undefined, plan: ExportPlan, changes: SpooledSheet<ChangeRow>): AsyncGenerator<AuditLogView> {
  for await (const { record, view, lookups } of auditEntries(ctx, where, plan)) {
    for (const row of changeRowsOf(record, view, lookups)) await changes.add(row);
    yield view;
  }
}

export function truncationNote(plan: ExportPlan, cap: number): string {
  return plan.truncated ? `已截断：共 ${plan.total} 条，仅导出最新的 ${cap} 条` : '未截断';
}

/** The 汇总 sheet: the effective filters, the counts and the truncation note. */
function summarySheet(rows: Array<[string, string | number | Date]>): SheetSpec<never> {
  return sheetOf<[string, string | number | Date]>({
    name: '汇总',
    columns: [
      { header: '项目', type: 'text', value: (row) => row[0] },
      { header: '内容', value: (row) => row[1] },
    ],
    rows,
  });
}

export const actionCounts = (plan: ExportPlan): Array<[string, number]> => [
  ...AUDIT_ACTIONS.map((action): [string, number] => [`${ACTION_LABELS[action]}（${action}）`, plan.byAction.get(action) ?? 0]),
  ...[...plan.byAction].filter(([action]) => !(AUDIT_ACTIONS as readonly string[]).includes(action)).map(([action, n]): [string, number] => [action, n]),
];

/**
 * GET /audit/logs/export (spec 4.8, 8): the list's filter without paging, as xlsx through the
 * platform's writer, streamed: 汇总 (filters, counts, truncation), 审计日志 (one row per record, newest
 * first) and 变更明细 (one row per changed field, spooled to a temporary file while 审计日志 is
 * written, so the records are read once). Records are read in keyset batches with one lookup per
 * batch, so memory stays flat whatever the size. More than `cap` records: the newest `cap`.
 */
export async function exportAuditLogs(
  ctx: UseCaseContext,
  query: AuditFilterQuery,
  cap = AUDIT_EXPORT_CAP,
): Promise<{ fileName: string; stream: Readable }> {
  const filter = auditFilterOf(ctx, query);
  const plan = await planExport(ctx, filter.where, cap);
  const summary: Array<[string, string | number | Date]> = [
    ['导出时间', ctx.now], // a date cell in Beijing time, like every time of the file
    ['导出人', ctx.actor.username],
    ...describeFilter(filter),
    ['匹配记录数', plan.total],
    ...actionCounts(plan),
    ['导出记录数', plan.exported],
    ['截断', truncationNote(plan, cap)],
    ['说明', `摘要超过 ${SUMMARY_MAX_LENGTH} 字时截断并以 … 标记，来源后缀不截断；凭据类字段不导出`],
  ];
  const changes = new SpooledSheet('变更明细', CHANGE_COLUMNS);
  const stream = streamWorkbook([
    summarySheet(summary),
    sheetOf<AuditLogView>({ name: '审计日志', columns: LOG_COLUMNS, rows: viewsFeedingChanges(ctx, filter.where, plan, changes) }),
    changes,
  ]);
  const fileName = plan.truncated ? `审计日志（已截断：共${plan.total}条，仅导出前${cap}条）.xlsx` : '审计日志.xlsx';
  return { fileName, stream };
}
