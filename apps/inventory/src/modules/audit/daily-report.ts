import type { Readable } from 'node:stream';
import { and, gte, lt, sql } from 'drizzle-orm';
import { beijingDate, companyCondition, parseTimeRange, queryRows, type SheetColumn, sheetOf, streamWorkbook, type UseCaseContext, validationFailed } from '@wms/platform';
import { auditLogs } from '../../db/schema/index.js';
import { AUDIT_ACTIONS, normaliseAction } from './actions.js';
import { AUDIT_EXPORT_CAP, LOG_COLUMNS, planViews, truncationNote } from './export.js';
import { companyText } from './filters.js';
import { moduleLabel } from './modules.js';
import { planExport } from './record-batches.js';
import type { AuditLogView, DailyReportQuery } from './schemas.js';

interface Tally {
  key: string;
  label: string;
  CREATE: number;
  UPDATE: number;
  DELETE: number;
  other: number;
  total: number;
  modules: Set<string>;
}

const tallyOf = (key: string, label: string): Tally => ({ key, label, CREATE: 0, UPDATE: 0, DELETE: 0, other: 0, total: 0, modules: new Set() });

function count(tallies: Map<string, Tally>, key: string, label: string, action: string, n: number, module: string): void {
  const tally = tallies.get(key) ?? tallyOf(key, label);
  tallies.set(key, tally);
  if ((AUDIT_ACTIONS as readonly string[]).includes(action)) tally[action as 'CREATE'] += n;
  else tally.other += n;
  tally.total += n;
  tally.modules.add(moduleLabel(module));
}

const TALLY_COUNTS: SheetColumn<Tally>[] = [
  { header: '新增', type: 'number', value: (t) => t.CREATE },
  { header: '修改', type: 'number', value: (t) => t.UPDATE },
  { header: '删除', type: 'number', value: (t) => t.DELETE },
  { header: '其他', type: 'number', value: (t) => t.other },
  { header: '合计', type: 'number', value: (t) => t.total },
];

/** The Beijing day as [00:00, next 00:00); an impossible date (2025-02-30) is 400 naming date. */
function dayRange(day: string): { from: Date; to: Date } {
  try {
    const range = parseTimeRange(day, day);
    return { from: range.from!, to: range.to!.at };
  } catch {
    throw validationFailed(`字段 date 不合法: ${day} 不是有效的日期`, { field: 'date' });
  }
}

const byTotal = (tallies: Map<string, Tally>) => [...tallies.values()].sort((a, b) => b.total - a.total || a.key.localeCompare(b.key));

/**
 * GET /audit/daily-report?date= (beyond the spec): what changed on one Beijing day in the caller's
 * company scope — counts per module and per person by action, and the list of records (the export's
 * columns, the same response rules, newest first, the export's cap).
 */
export async function dailyAuditReport(
  ctx: UseCaseContext,
  query: DailyReportQuery,
  cap = AUDIT_EXPORT_CAP,
): Promise<{ fileName: string; stream: Readable }> {
  const day = query.date ?? beijingDate(ctx.now);
  const range = dayRange(day);
  const scope = ctx.scope(query.company);
  const where = and(companyCondition(scope, auditLogs.companyName), gte(auditLogs.createdAt, range.from), lt(auditLogs.createdAt, range.to));
  const groups = await ctx.read((q) =>
    queryRows<{ module: string; username: string; name: string | null; action: string; n: number }>(
      q,
      sql`select a.module, a.username, u.name, a.action, a.n
            from (select module, username, action, count(*)::int as n from ${auditLogs} where ${where} group by module, username, action) a
            left join users u on u.username = a.username`,
    ),
  );
  const modules = new Map<string, Tally>();
  const people = new Map<string, Tally>();
  for (const group of groups) {
    const action = normaliseAction(group.action);
    const n = Number(group.n);
    count(modules, group.module, moduleLabel(group.module), action, n, group.module);
    count(people, group.username, group.name ?? (group.username === 'system' ? '系统' : ''), action, n, group.module);
  }
  const plan = await planExport(ctx, where, cap);
  const stream = streamWorkbook([
    sheetOf<[string, string | number]>({
      name: '汇总',
      columns: [
        { header: '项目', type: 'text', value: (row) => row[0] },
        { header: '内容', value: (row) => row[1] },
      ],
      rows: [
        ['日期', day],
        ['公司', companyText(scope)],
        ['记录数', plan.total],
        ['涉及模块数', modules.size],
        ['涉及人数', people.size],
        ['明细', truncationNote(plan, cap)],
      ],
    }),
    sheetOf<Tally>({
      name: '按模块',
      columns: [{ header: '模块', type: 'text', value: (t) => t.label }, { header: '模块原值', type: 'text', value: (t) => t.key }, ...TALLY_COUNTS],
      rows: byTotal(modules),
    }),
    sheetOf<Tally>({
      name: '按人员',
      columns: [
        { header: '操作人', type: 'text', value: (t) => t.key },
        { header: '姓名', type: 'text', value: (t) => t.label },
        ...TALLY_COUNTS,
        { header: '涉及模块', type: 'text', value: (t) => [...t.modules].join('、') },
      ],
      rows: byTotal(people),
    }),
    sheetOf<AuditLogView>({ name: '明细', columns: LOG_COLUMNS, rows: planViews(ctx, where, plan) }),
  ]);
  return { fileName: `审计日报_${day}${plan.truncated ? `（已截断：共${plan.total}条，仅导出前${cap}条）` : ''}.xlsx`, stream };
}
