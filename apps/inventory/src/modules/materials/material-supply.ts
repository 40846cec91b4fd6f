import { and, asc, count, eq, type SQL } from 'drizzle-orm';
import type { CompanyScope, Queryable } from '@wms/platform';
import { materials, type AlertLevel } from '../../db/schema/index.js';
import { alertLevelCondition, joinSupply, supplyColumns } from '../supply/supply-sql.js';
import { materialWhere } from './material-filter.js';
import type { MaterialFilter } from './schemas.js';

/** A material's supply as the list, the detail and the export show it (the rule of modules/supply). */
export interface MaterialSupplyValues {
  physical: string;
  available: string;
  inTransit: string;
  supply: string;
  alertLevel: AlertLevel | null;
}

/** Materials with their supply in the same query (lateral sums), never one query per material. */
export function selectMaterialsWithSupply(q: Queryable) {
  const { physical, available, inTransit, supply, alertLevel } = supplyColumns;
  return joinSupply(q.select({ material: materials, supply: { physical, available, inTransit, supply, alertLevel } }).from(materials).$dynamic());
}

/** The supply of one material (the answer of a create or an update carries it like the detail). */
export async function supplyOfMaterial(q: Queryable, id: number): Promise<MaterialSupplyValues | undefined> {
  const [row] = await selectMaterialsWithSupply(q).where(eq(materials.id, id));
  return row?.supply;
}

/** The list's and the export's WHERE: the shared material filter plus the alert level. */
export function materialListWhere(scope: CompanyScope, filter: MaterialFilter): SQL | undefined {
  return and(materialWhere(scope, filter), alertLevelCondition(filter.alert_level));
}

/** The count of a filtered list; the supply subqueries are joined only when the alert level filters. */
export async function countMaterials(q: Queryable, where: SQL | undefined, filter: MaterialFilter): Promise<number> {
  const query = q.select({ n: count() }).from(materials).$dynamic();
  const [total] = await (filter.alert_level ? joinSupply(query) : query).where(where);
  return total?.n ?? 0;
}

/**
 * The ids of one page of a filtered list, in id order, as a subquery. The supply subqueries are joined
 * only when the alert level filters: otherwise OFFSET skips bare rows and the supply is computed for the
 * page's rows alone, not for every row skipped.
 */
export function pageOfMaterialIds(q: Queryable, where: SQL | undefined, filter: MaterialFilter, paging: { limit: number; offset: number }) {
  const query = q.select({ id: materials.id }).from(materials).$dynamic();
  return (filter.alert_level ? joinSupply(query) : query).where(where).orderBy(asc(materials.id)).limit(paging.limit).offset(paging.offset);
}
