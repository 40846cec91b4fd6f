import { asc, count } from 'drizzle-orm';
import { companyCondition, type UseCaseContext } from '@wms/platform';
import { materials } from '../../db/schema/index.js';
import { topLevelOf } from './category-path.js';
import type { CategorySummary } from './schemas.js';

/**
 * Material counts in the caller's company scope: per full category path and per first segment
 * (the owning department), both sorted by name, plus the total.
 */
export async function summarizeCategories(ctx: UseCaseContext, company?: string): Promise<CategorySummary> {
  const where = companyCondition(ctx.scope(company), materials.companyName);
  const rows = await ctx.read((q) =>
    q
      .select({ category: materials.category, count: count() })
      .from(materials)
      .where(where)
      .groupBy(materials.category)
      .orderBy(asc(materials.category)),
  );
  const byTopLevel = new Map<string, number>();
  for (const row of rows) {
    const top = topLevelOf(row.category);
    byTopLevel.set(top, (byTopLevel.get(top) ?? 0) + row.count);
  }
  return {
    total: rows.reduce((sum, row) => sum + row.count, 0),
    categories: rows,
    top_level: [...byTopLevel.entries()].map(([category, n]) => ({ category, count: n })),
  };
}
