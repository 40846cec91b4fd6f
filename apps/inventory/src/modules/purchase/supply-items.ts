import { and, desc, eq, inArray, sql } from 'drizzle-orm';
import { QueryBuilder } from 'drizzle-orm/pg-core';
import { toQuantity, toQuantityOrZero, type Queryable } from '@wms/platform';
import { materials, PURCHASE_STATUS, purchaseRequests, suppliers, type AlertLevel } from '../../db/schema/index.js';
import { joinSupply, suggestedQuantitySql, supplyColumns, targetQuantitySql } from '../supply/supply-sql.js';
import type { SupplyItemView } from './schemas.js';

const qb = new QueryBuilder();

/**
 * The supplier last used for the material: that of its newest approved or completed purchase request
 * naming one (a rejected, pending or closed request was never an order).
 */
const lastSupplier = qb
  .select({ supplierId: suppliers.id, supplierName: suppliers.name, leadTimeDays: suppliers.leadTimeDays })
  .from(purchaseRequests)
  .innerJoin(suppliers, eq(suppliers.id, purchaseRequests.supplierId))
  .where(and(eq(purchaseRequests.baseId, materials.id), inArray(purchaseRequests.status, [PURCHASE_STATUS.approved, PURCHASE_STATUS.completed])))
  .orderBy(desc(purchaseRequests.id))
  .limit(1)
  .as('last_supplier');

/** Materials with their supply, target, suggestion and last supplier: one query, FROM materials. */
export function selectSupplyItems(q: Queryable) {
  const query = q
    .select({
      baseId: materials.id,
      name: materials.name,
      specModel: materials.specModel,
      unit: materials.unit,
      category: materials.category,
      companyName: materials.companyName,
      referencePrice: materials.referencePrice,
      purchaseLink: materials.purchaseLink,
      redThreshold: materials.redThreshold,
      yellowThreshold: materials.yellowThreshold,
      targetThreshold: materials.targetThreshold,
      ...supplyColumns,
      target: sql<string | null>`${targetQuantitySql}::text`,
      suggested: sql<string>`${suggestedQuantitySql}::text`,
      supplierId: lastSupplier.supplierId,
      supplierName: lastSupplier.supplierName,
      leadTimeDays: lastSupplier.leadTimeDays,
    })
    .from(materials)
    .$dynamic();
  return joinSupply(query).leftJoinLateral(lastSupplier, sql`true`);
}

export type SupplyItemRow = Awaited<ReturnType<ReturnType<typeof selectSupplyItems>['execute']>>[number];

/** referencePrice and purchaseLink are absent unless readable (hiddenMaterialFields of the materials module). */
export function toSupplyItemView(row: SupplyItemRow, hidden: ReadonlySet<string>): SupplyItemView {
  const view: SupplyItemView = {
    base_id: row.baseId,
    name: row.name,
    spec_model: row.specModel,
    unit: row.unit,
    category: row.category,
    company_name: row.companyName,
    stock_quantity: toQuantityOrZero(row.physical),
    available_quantity: toQuantityOrZero(row.available),
    in_transit_quantity: toQuantityOrZero(row.inTransit),
    pending_purchase_quantity: toQuantityOrZero(row.pendingPurchase),
    effective_supply: toQuantityOrZero(row.supply),
    red_threshold: toQuantity(row.redThreshold),
    yellow_threshold: toQuantity(row.yellowThreshold),
    target_threshold: toQuantity(row.targetThreshold),
    target_quantity: toQuantity(row.target),
    alert_level: (row.alertLevel as AlertLevel | null) ?? 'none',
    suggested_qty: toQuantityOrZero(row.suggested),
    referencePrice: toQuantity(row.referencePrice),
    purchaseLink: row.purchaseLink,
    supplier: row.supplierId === null ? null : { id: row.supplierId, name: row.supplierName!, lead_time_days: row.leadTimeDays },
  };
  if (hidden.has('referencePrice')) delete view.referencePrice;
  if (hidden.has('purchaseLink')) delete view.purchaseLink;
  return view;
}
