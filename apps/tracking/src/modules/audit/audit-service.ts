import { and, count, desc, eq, gte, inArray, lt, or, sql, type SQL } from 'drizzle-orm';
import { beijingIso, beijingMidnight, keywordMatch, keywordPattern, pageOf, pagingOf, type UseCaseContext } from '@wms/platform';
import { auditLogs, users } from '../../db/schema/index.js';
import { inDepartment } from '../identity/department.js';
import type { AuditEntry, AuditQuery } from './schemas.js';


/**
 * The general keyword's person part: the actor label is the account of a logged-in writer, but the display
 * name of the department account that operated a received notification (spec 4.1 rule 4), so an account
 * matches both its own label and its name, and a name matches its account's records.
 */
function actorMatch(pattern: string, department: string): SQL {
  const departmentAccounts = inDepartment(users.department, department);
  return or(
    sql`${auditLogs.username} in (select ${users.username} from ${users} where ${users.name} ilike ${pattern} and ${departmentAccounts})`,
    sql`${auditLogs.username} in (select ${users.name} from ${users} where ${users.username} ilike ${pattern} and ${departmentAccounts})`,
  )!;
}

function conditionsOf(query: AuditQuery, department: string): SQL | undefined {
  const conditions: (SQL | undefined)[] = [];
  if (query.module) conditions.push(eq(auditLogs.module, query.module));
  if (query.action) {
    const actions = query.action.split(',').map((a) => a.trim().toUpperCase()).filter(Boolean);
    if (actions.length > 0) conditions.push(inArray(auditLogs.action, actions));
  }
  if (query.username) conditions.push(eq(auditLogs.username, query.username));
  conditions.push(keywordMatch(query.target_keyword, auditLogs.targetId, auditLogs.targetName));
  // the general list keyword (contract §8): the object (id or stored name) or the person (account or name)
  const pattern = keywordPattern(query.keyword);
  if (pattern) {
    conditions.push(
      or(
        keywordMatch(query.keyword, auditLogs.targetId, auditLogs.targetName, auditLogs.username),
        actorMatch(pattern, department),
      ),
    );
  }
  // A bare date is a Beijing day; the end date includes its whole day.
  if (query.start_date) conditions.push(gte(auditLogs.createdAt, beijingMidnight(query.start_date)));
  if (query.end_date) conditions.push(lt(auditLogs.createdAt, new Date(beijingMidnight(query.end_date).getTime() + 24 * 3600 * 1000)));
  return and(...conditions);
}

function toAuditEntry(row: typeof auditLogs.$inferSelect): AuditEntry {
  return {
    id: row.id,
    module: row.module,
    action: row.action,
    target_id: row.targetId,
    target_name: row.targetName,
    username: row.username,
    time: beijingIso(row.createdAt),
    source: row.requestUrl ? row.requestUrl.replace(/^\/api\/v\d+/, '') : null,
    details: row.details,
  };
}

/** The tracking service's own audit trail (contract §8), newest first; receiver writes show the operator. */
export async function listAudit(ctx: UseCaseContext, query: AuditQuery) {
  const paging = pagingOf(query);
  const where = conditionsOf(query, ctx.actor.company ?? '');
  return ctx.read(async (q) => {
    const rows = await q.select().from(auditLogs).where(where).orderBy(desc(auditLogs.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(auditLogs).where(where);
    return pageOf(rows.map(toAuditEntry), total?.n ?? 0, paging);
  });
}

/** Contract §8: `/audit/modules` is `[{ value, label }]`; the tracking service's modules are Chinese names already. */
export const auditModules = (ctx: UseCaseContext) =>
  ctx
    .read((q) => q.selectDistinct({ module: auditLogs.module }).from(auditLogs).orderBy(sql`1`))
    .then((rows) => rows.map((r) => ({ value: r.module, label: r.module })));
