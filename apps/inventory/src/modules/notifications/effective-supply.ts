import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { Decimal, type Queryable } from '@wms/platform';
import { materials, materialStockAlerts, PURCHASE_STATUS, purchaseRequests, type AlertLevel } from '../../db/schema/index.js';
import { joinSupply, supplyColumns } from '../supply/supply-sql.js';

/** A material with its thresholds, its effective supply, the level that supply stands at and the level it was last alerted at. */
export interface MaterialSupply {
  baseId: number;
  name: string;
  specModel: string;
  unit: string;
  companyName: string;
  redThreshold: string | null;
  yellowThreshold: string | null;
  /** Physical stock of every row except 不良品, borrowed quantity included (contract §8). */
  physical: Decimal;
  inTransit: Decimal;
  /** physical + inTransit: what the thresholds are compared with (spec 4.5). */
  supply: Decimal;
  /** The level the supply stands at now (modules/supply: the rule the pool and the material list use). */
  level: AlertLevel | null;
  alertedLevel: AlertLevel | null;
}

/**
 * The in-transit quantity per material: the sum of approved, not yet stocked-in purchase requests
 * (contract §4). Materials with nothing in transit are absent from the map.
 */
export async function inTransitQuantities(q: Queryable, baseIds: readonly number[]): Promise<Map<number, Decimal>> {
  if (baseIds.length === 0) return new Map();
  const rows = await q
    .select({ baseId: purchaseRequests.baseId, quantity: sql<string>`sum(${purchaseRequests.quantity})::text` })
    .from(purchaseRequests)
    .where(and(inArray(purchaseRequests.baseId, [...baseIds]), eq(purchaseRequests.status, PURCHASE_STATUS.approved)))
    .groupBy(purchaseRequests.baseId);
  return new Map(rows.map((row) => [row.baseId, new Decimal(row.quantity)]));
}

/**
 * The effective supply and level of the given materials in one query (modules/supply). With
 * onlyAlerted, only materials that currently hold an alert level are read.
 */
export async function effectiveSupplies(
  q: Queryable,
  baseIds: readonly number[],
  options: { company?: string; onlyAlerted?: boolean } = {},
): Promise<MaterialSupply[]> {
  if (baseIds.length === 0) return [];
  const query = q
    .select({
      baseId: materials.id,
      name: materials.name,
      specModel: materials.specModel,
      unit: materials.unit,
      companyName: materials.companyName,
      redThreshold: materials.redThreshold,
      yellowThreshold: materials.yellowThreshold,
      alertedLevel: materialStockAlerts.level,
      physical: supplyColumns.physical,
      inTransit: supplyColumns.inTransit,
      supply: supplyColumns.supply,
      level: supplyColumns.alertLevel,
    })
    .from(materials)
    .leftJoin(materialStockAlerts, eq(materialStockAlerts.baseId, materials.id))
    .$dynamic();
  const rows = await joinSupply(query)
    .where(
      and(
        inArray(materials.id, [...baseIds]),
        options.company === undefined ? undefined : eq(materials.companyName, options.company),
        options.onlyAlerted ? isNotNull(materialStockAlerts.level) : undefined,
      ),
    )
    .orderBy(materials.id);
  return rows.map((row) => ({
    ...row,
    physical: new Decimal(row.physical),
    inTransit: new Decimal(row.inTransit),
    supply: new Decimal(row.supply),
  }));
}
