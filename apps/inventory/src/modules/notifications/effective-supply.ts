import { and, eq, inArray, isNotNull, sql } from 'drizzle-orm';
import { Decimal, type Queryable } from '@wms/platform';
import { materials, materialStockAlerts, stockRows, type AlertLevel } from '../../db/schema/index.js';

/** A material with its thresholds, its effective supply and the level it was last alerted at. */
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
  alertedLevel: AlertLevel | null;
}

/**
 * Seam (purchase issue): the in-transit quantity per material is the sum of approved, not yet
 * stocked-in purchase requests (contract §4). Until purchase requests exist it is 0 for every material.
 */
export async function inTransitQuantities(_q: Queryable, _baseIds: readonly number[]): Promise<Map<number, Decimal>> {
  return new Map();
}

/**
 * The effective supply of the given materials in one query (plus the in-transit lookup). With
 * onlyAlerted, only materials that currently hold an alert level are read.
 */
export async function effectiveSupplies(
  q: Queryable,
  baseIds: readonly number[],
  options: { company?: string; onlyAlerted?: boolean } = {},
): Promise<MaterialSupply[]> {
  if (baseIds.length === 0) return [];
  const physical = sql<string>`coalesce(sum(${stockRows.stockQuantity}) filter (where ${stockRows.status} <> '不良品'), 0)::text`;
  const rows = await q
    .select({
      baseId: materials.id,
      name: materials.name,
      specModel: materials.specModel,
      unit: materials.unit,
      companyName: materials.companyName,
      redThreshold: materials.redThreshold,
      yellowThreshold: materials.yellowThreshold,
      alertedLevel: materialStockAlerts.level,
      physical,
    })
    .from(materials)
    .leftJoin(stockRows, eq(stockRows.baseId, materials.id))
    .leftJoin(materialStockAlerts, eq(materialStockAlerts.baseId, materials.id))
    .where(
      and(
        inArray(materials.id, [...baseIds]),
        options.company === undefined ? undefined : eq(materials.companyName, options.company),
        options.onlyAlerted ? isNotNull(materialStockAlerts.level) : undefined,
      ),
    )
    .groupBy(materials.id, materialStockAlerts.level)
    .orderBy(materials.id);
  const inTransit = await inTransitQuantities(q, rows.map((row) => row.baseId));
  return rows.map((row) => {
    const transit = inTransit.get(row.baseId) ?? new Decimal(0);
    const onHand = new Decimal(row.physical);
    return { ...row, physical: onHand, inTransit: transit, supply: onHand.plus(transit) };
  });
}
