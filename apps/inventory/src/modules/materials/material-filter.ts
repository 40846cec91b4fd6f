import { and, eq, ilike, like, or, type SQL } from 'drizzle-orm';
import { companyCondition, likePattern, type CompanyScope } from '@wms/platform';
import { materials } from '../../db/schema/index.js';
import { normaliseCategory } from './category-path.js';
import type { MaterialFilter } from './schemas.js';

/** 'A/B' → a LIKE pattern for everything below A/B, with wildcards in the path taken literally. */
function belowCategoryPattern(category: string): string {
  return `${category.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
}

/**
 * The one filter of the list, the export and the category summary: company scope, keyword on
 * name / spec_model / category (case-insensitive), and a category prefix that respects segments
 * ('A/B' matches 'A/B' and 'A/B/…' but not 'A/BC').
 */
export function materialWhere(scope: CompanyScope, filter: MaterialFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [companyCondition(scope, materials.companyName)];
  const keyword = filter.keyword?.trim();
  if (keyword) {
    const pattern = likePattern(keyword);
    conditions.push(or(ilike(materials.name, pattern), ilike(materials.specModel, pattern), ilike(materials.category, pattern)));
  }
  const category = filter.category ? normaliseCategory(filter.category) : '';
  if (category) {
    conditions.push(or(eq(materials.category, category), like(materials.category, belowCategoryPattern(category))));
  }
  return and(...conditions);
}
