import { and, inArray, sql } from 'drizzle-orm';
import { companyCondition, queryRows, type CompanyScope, type Queryable } from '@wms/platform';
import { materials, stockRows } from '../../db/schema/index.js';
import { flattenJoined, selectStockRows, type StockRowWithMaterial } from '../stock/stock-rows.js';

/** The stock rows of the caller's scope among `ids`, with their material: one query for the whole selection. */
export async function readScopedStockRows(q: Queryable, scope: CompanyScope, ids: readonly number[]): Promise<Map<number, StockRowWithMaterial>> {
  const found = await selectStockRows(q).where(and(inArray(stockRows.id, [...ids]), companyCondition(scope, materials.companyName)));
  return new Map(found.map((joined) => [joined.row.id, flattenJoined(joined)]));
}

/**
 * The paths among `paths` that are nodes of the caller's location tree (GET /warehouse/tree): a stored
 * location of a stock row in scope, or a prefix of one ("A/01" of "A/01/03"). One query for all paths.
 */
export async function existingLocations(q: Queryable, scope: CompanyScope, paths: readonly string[]): Promise<Set<string>> {
  const company = companyCondition(scope, sql.raw('m.company_name'));
  const candidates = sql.join(paths.map((path) => sql`(${path}::text)`), sql`, `);
  const rows = await queryRows<{ path: string }>(
    q,
    sql`select p.path from (values ${candidates}) as p(path)
         where exists (select 1 from stock_rows s join materials m on m.id = s.base_id
                        where (s.warehouse_location = p.path or starts_with(s.warehouse_location, p.path || '/'))
                        ${company ? sql`and ${company}` : sql``})`,
  );
  return new Set(rows.map((row) => row.path));
}
