import { and, eq, sql, type SQL } from 'drizzle-orm';
import { QueryBuilder, type PgSelect } from 'drizzle-orm/pg-core';
import { materials, PURCHASE_STATUS, purchaseRequests, stockRows, type AlertLevel } from '../../db/schema/index.js';

/**
 * The one SQL definition of a material's supply (spec 4.5, contract §4 and §8), shared by the material
 * list and its export, the pending pool and the low-stock alert, so all of them put a material at the
 * same level on the same data:
 *
 *   physical         every stock row except 不良品, borrowed quantity included
 *   available        available_quantity of 在库 rows (what can still be allocated)
 *   in transit       approved purchase requests not yet stocked in (status 1; pending ones do not count)
 *   effective supply physical + in transit
 *   alert level      red when supply <= red_threshold, else yellow when supply <= yellow_threshold,
 *                    else none (a threshold that is not set never alerts; <= is deliberate)
 *
 * Both sums are LATERAL subqueries correlated with `materials`: one query for a whole page, never
 * one per material. `joinSupply` adds them to a select from `materials`.
 */
const qb = new QueryBuilder();

const stockSupply = qb
  .select({
    physical: sql<string>`coalesce(sum(${stockRows.stockQuantity}) filter (where ${stockRows.status} <> '不良品'), 0)`.as('physical'),
    available: sql<string>`coalesce(sum(${stockRows.availableQuantity}) filter (where ${stockRows.status} = '在库'), 0)`.as('available'),
  })
  .from(stockRows)
  .where(eq(stockRows.baseId, materials.id))
  .as('stock_supply');

const purchaseSupply = qb
  .select({
    inTransit: sql<string>`coalesce(sum(${purchaseRequests.quantity}) filter (where ${purchaseRequests.status} = ${PURCHASE_STATUS.approved}), 0)`.as('in_transit'),
    pending: sql<string>`coalesce(sum(${purchaseRequests.quantity}) filter (where ${purchaseRequests.status} = ${PURCHASE_STATUS.pending}), 0)`.as('pending_purchase'),
  })
  .from(purchaseRequests)
  .where(and(eq(purchaseRequests.baseId, materials.id), sql`${purchaseRequests.status} in (${PURCHASE_STATUS.pending}, ${PURCHASE_STATUS.approved})`))
  .as('purchase_supply');

/** physical + in transit, as a numeric expression (compare with it; select `supplyColumns`). */
export const effectiveSupplySql: SQL = sql`(${stockSupply.physical} + ${purchaseSupply.inTransit})`;

/** 'red' | 'yellow' | null, by the one rule above. */
export const alertLevelSql: SQL<AlertLevel | null> = sql<AlertLevel | null>`(case
  when ${materials.redThreshold} is not null and ${effectiveSupplySql} <= ${materials.redThreshold} then 'red'
  when ${materials.yellowThreshold} is not null and ${effectiveSupplySql} <= ${materials.yellowThreshold} then 'yellow'
end)`;

/** The supply columns of a select, quantities as exact decimal strings. */
export const supplyColumns = {
  physical: sql<string>`${stockSupply.physical}::text`,
  available: sql<string>`${stockSupply.available}::text`,
  inTransit: sql<string>`${purchaseSupply.inTransit}::text`,
  pendingPurchase: sql<string>`${purchaseSupply.pending}::text`,
  supply: sql<string>`${effectiveSupplySql}::text`,
  alertLevel: alertLevelSql,
};

/** The list filter alert_level: none means no level (above both thresholds, or none set). */
export type AlertLevelFilter = AlertLevel | 'none';

export function alertLevelCondition(filter: AlertLevelFilter | undefined): SQL | undefined {
  if (filter === undefined) return undefined;
  return filter === 'none' ? sql`${alertLevelSql} is null` : sql`${alertLevelSql} = ${filter}`;
}

/** Adds the supply subqueries to a select whose FROM is `materials`. */
export function joinSupply<T extends PgSelect>(query: T): T {
  return query.leftJoinLateral(stockSupply, sql`true`).leftJoinLateral(purchaseSupply, sql`true`) as unknown as T;
}

/** The pending pool's target (spec 4.5, contract §4): target_threshold, else yellow_threshold, else red_threshold. */
export const targetQuantitySql: SQL = sql`coalesce(${materials.targetThreshold}, ${materials.yellowThreshold}, ${materials.redThreshold})`;

/** max(1, target − effective supply); 1 when the material has no threshold at all. */
export const suggestedQuantitySql: SQL = sql`greatest(1, coalesce(${targetQuantitySql} - ${effectiveSupplySql}, 1))`;

/** Red before yellow before none, for ordering. */
export const alertSeveritySql: SQL = sql`(case ${alertLevelSql} when 'red' then 2 when 'yellow' then 1 else 0 end)`;
