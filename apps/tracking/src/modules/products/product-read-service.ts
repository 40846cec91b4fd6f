import { and, count, desc, eq, type SQL } from 'drizzle-orm';
import { keywordMatch, notFound, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { products } from '../../db/schema/index.js';
import type { TrackingContext } from '../identity/data-scope.js';
import { toProductView } from './product-mapper.js';
import { productScopeCondition } from './product-scope.js';
import type { ProductListQuery } from './schemas.js';

/** One WHERE for the page and the total: the data scope is part of it (spec 4.3), never applied after paging. */
function productWhere(scopeCondition: SQL | undefined, query: ProductListQuery): SQL | undefined {
  const conditions: (SQL | undefined)[] = [scopeCondition];
  conditions.push(keywordMatch(query.keyword, products.serialNumber, products.model));
  if (query.status) conditions.push(eq(products.status, query.status));
  if (query.lifecycle_phase) conditions.push(eq(products.lifecyclePhase, query.lifecycle_phase));
  if (query.current_stage) conditions.push(eq(products.currentStage, query.current_stage));
  if (query.group_id) conditions.push(eq(products.groupId, query.group_id));
  if (query.base_id) conditions.push(eq(products.baseId, query.base_id));
  // contract §8: start_date / end_date of a list; a bare date is a Beijing day, the end day whole
  conditions.push(timeRangeCondition(products.createdAt, query.start_date, query.end_date));
  return and(...conditions);
}

/** Newest first. */
export async function listProducts(ctx: TrackingContext, query: ProductListQuery) {
  const paging = pagingOf(query);
  const where = productWhere(productScopeCondition(await ctx.dataScope()), query);
  return ctx.read(async (q) => {
    const rows = await q.select().from(products).where(where).orderBy(desc(products.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(products).where(where);
    return pageOf(rows.map(toProductView), total?.n ?? 0, paging);
  });
}

/** A lookup by id, like the scan: anybody logged in may view a product; operating needs scope. */
export async function getProduct(ctx: UseCaseContext, id: number) {
  const [row] = await ctx.read((q) => q.select().from(products).where(eq(products.id, id)));
  if (!row) throw notFound('产品');
  return toProductView(row);
}

/** GET /products/scan/{sn}: exact serial (case-insensitive), not scope-filtered (spec 4.3). */
export async function scanProduct(ctx: UseCaseContext, serialNumber: string) {
  const [row] = await ctx.read((q) => q.select().from(products).where(eq(products.serialNumber, serialNumber.trim().toUpperCase())));
  if (!row) throw notFound(`序列号 ${serialNumber} 对应的产品`);
  return toProductView(row);
}
