import { and, ilike, inArray, or, sql, type SQL } from 'drizzle-orm';
import { companyCondition, type CompanyScope, likePattern, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { auditLogs } from '../../db/schema/index.js';
import { ACTION_LABELS, parseActionFilter, storedActionsOf, type AuditAction } from './actions.js';
import { expandModule, moduleLabel } from './modules.js';
import type { AuditFilterQuery } from './schemas.js';

/** The filter of the list, the export and (through its own day) the daily report, parsed once. */
export interface AuditFilter {
  where: SQL | undefined;
  scope: CompanyScope;
  module?: string;
  actions: AuditAction[];
  keyword?: string;
  /** The general list keyword (contract §8): target id or name, or the actor's username or name. */
  search?: string;
  startDate?: string;
  endDate?: string;
}

/**
 * One WHERE for list and export (spec 4.8 "same filter code"): company scope, module (the 入库 group
 * expands to its members), actions with their historical aliases, keyword on target id or stored
 * name (case-insensitive, literal), and the closed range of Beijing days on the capture time.
 */
export function auditFilterOf(ctx: UseCaseContext, query: AuditFilterQuery): AuditFilter {
  const scope = ctx.scope(query.company);
  const module = query.module?.trim() || undefined;
  const actions = parseActionFilter(query.action);
  const keyword = query.target_keyword?.trim() || undefined;
  const search = query.keyword?.trim() || undefined;
  const where = and(
    companyCondition(scope, auditLogs.companyName),
    module ? inArray(auditLogs.module, expandModule(module)) : undefined,
    actions.length > 0 ? inArray(sql`upper(btrim(${auditLogs.action}))`, storedActionsOf(actions)) : undefined,
    keyword ? targetCondition(likePattern(keyword)) : undefined,
    search ? searchCondition(search) : undefined,
    timeRangeCondition(auditLogs.createdAt, query.start_date, query.end_date),
  );
  return {
    where,
    scope,
    module,
    actions,
    keyword,
    search,
    startDate: query.start_date?.trim() || undefined,
    endDate: query.end_date?.trim() || undefined,
  };
}

/** target_keyword: the record's object by its id or stored name, case-insensitive, the pattern literal. */
const targetCondition = (pattern: string) => or(ilike(auditLogs.targetId, pattern), ilike(auditLogs.targetName, pattern));

/**
 * `keyword`, the parameter contract §8 gives every list: what a reader searches an audit trail by — the
 * object (its id or stored name, as target_keyword) or the person who made the change (username or name).
 * Literal and case-insensitive like target_keyword.
 */
function searchCondition(text: string): SQL | undefined {
  const pattern = likePattern(text);
  return or(
    targetCondition(pattern),
    ilike(auditLogs.username, pattern),
    sql`${auditLogs.username} in (select u.username from users u where u.name ilike ${pattern})`,
  );
}

export const companyText = (scope: CompanyScope): string =>
  scope.kind === 'all' ? '全部公司' : scope.kind === 'one' ? scope.company : '（无公司）';

function moduleText(module: string): string {
  const members = expandModule(module);
  if (members.length > 1) return `${moduleLabel(module)}（${members.join('、')}）`;
  return moduleLabel(module) === module ? module : `${moduleLabel(module)}（${module}）`;
}

/** The effective filters as the export's summary sheet states them. */
export function describeFilter(filter: AuditFilter): Array<[string, string]> {
  return [
    ['公司', companyText(filter.scope)],
    ['模块', filter.module ? moduleText(filter.module) : '全部'],
    ['操作', filter.actions.length > 0 ? filter.actions.map((action) => ACTION_LABELS[action]).join('、') : '全部'],
    ['对象关键字', filter.keyword ?? '无'],
    ['关键字', filter.search ?? '无'],
    ['开始日期', filter.startDate ?? '不限'],
    ['结束日期', filter.endDate ?? '不限'],
  ];
}
