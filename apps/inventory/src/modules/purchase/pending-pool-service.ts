import { and, asc, count, desc, sql } from 'drizzle-orm';
import { pageOf, pagingOf, type Page, type UseCaseContext } from '@wms/platform';
import { materials } from '../../db/schema/index.js';
import { hiddenMaterialFields } from '../materials/field-permissions.js';
import { materialWhere } from '../materials/material-filter.js';
import { alertLevelCondition, alertLevelSql, alertSeveritySql, joinSupply } from '../supply/supply-sql.js';
import type { PendingPoolQuery, SupplyItemView } from './schemas.js';
import { selectSupplyItems, toSupplyItemView } from './supply-items.js';

/**
 * GET /purchase/pending-pool (inbound_purchase:pending_pool), spec 4.5: every material of the caller's
 * company whose effective supply is at or below its red or yellow threshold — the rule of the material
 * list and the low-stock mail (modules/supply) — red first, with suggested_qty and the supplier last used.
 * Filters as the material list (keyword, category) plus alert_level. One query for the page, one count.
 */
export async function listPendingPool(ctx: UseCaseContext, query: PendingPoolQuery): Promise<Page<SupplyItemView>> {
  const paging = pagingOf(query);
  const where = and(
    materialWhere(ctx.scope(query.company), query),
    sql`${alertLevelSql} is not null`,
    alertLevelCondition(query.alert_level),
  );
  const hidden = hiddenMaterialFields(ctx.actor);
  return ctx.read(async (q) => {
    const rows = await selectSupplyItems(q).where(where).orderBy(desc(alertSeveritySql), asc(materials.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await joinSupply(q.select({ n: count() }).from(materials).$dynamic()).where(where);
    return pageOf(rows.map((row) => toSupplyItemView(row, hidden)), total?.n ?? 0, paging);
  });
}
