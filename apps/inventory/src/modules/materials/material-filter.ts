import { and, eq, like, or, type SQL } from 'drizzle-orm';
import { companyCondition, containsIgnoringCase, timeRangeCondition, type CompanyScope } from '@wms/platform';
import { materials } from '../../db/schema/index.js';
import { normaliseCategory } from './category-path.js';
import type { MaterialFilter } from './schemas.js';

/** 'A/B' → a LIKE pattern for everything below A/B, with wildcards in the path taken literally. */
function belowCategoryPattern(category: string): string {
  return `${category.replace(/[\\%_]/g, (c) => `\\${c}`)}/%`;
}

/**
 * The one filter of the list, the export and the category summary: company scope, keyword on
 * name / spec_model / category (case-insensitive), a category prefix that respects segments
 * ('A/B' matches 'A/B' and 'A/B/…' but not 'A/BC'), and start_date / end_date on created_at.
 */
export function materialWhere(scope: CompanyScope, filter: MaterialFilter): SQL | undefined {
  const conditions: (SQL | undefined)[] = [companyCondition(scope, materials.companyName)];
  const keyword = filter.keyword?.trim();
  if (keyword) {
    conditions.push(
      or(containsIgnoringCase(materials.name, keyword), containsIgnoringCase(materials.specModel, keyword), containsIgnoringCase(materials.category, keyword)),
    );
  }
  const category = filter.category ? normaliseCategory(filter.category) : '';
  if (category) {
    conditions.push(or(eq(materials.category, category), like(materials.category, belowCategoryPattern(category))));
  }
  conditions.push(timeRangeCondition(materials.createdAt, filter.start_date, filter.end_date));
  return and(...conditions);
}
