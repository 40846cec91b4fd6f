import { and, asc, count, desc, ne, type SQL } from 'drizzle-orm';
import { companyCondition, containsIgnoringCase, type UseCaseContext } from '@wms/platform';
import { materials } from '../../db/schema/index.js';
import { SpecSuggestionCache, specSuggestionCache } from './spec-suggestion-cache.js';
import type { SpecSuggestionQuery } from './schemas.js';

/** Spec §8: one suggestion query looks at no more than this many material rows. */
export const SPEC_SUGGESTION_SCAN_LIMIT = 10_000;
/** Values answered at most, the most used first. */
export const SPEC_SUGGESTION_LIMIT = 50;

/** Distinct spec_model values for the autocomplete, in the caller's company scope, cached an hour. */
export async function suggestSpecModels(ctx: UseCaseContext, query: SpecSuggestionQuery): Promise<string[]> {
  const scope = ctx.scope(query.company);
  const wanted = { keyword: query.keyword?.trim() ?? '', name: query.name?.trim() ?? '' };
  const key = SpecSuggestionCache.keyOf(scope, wanted);
  const cached = specSuggestionCache.get(key, ctx.now);
  if (cached) return cached;
  const generation = specSuggestionCache.generation;

  const conditions: (SQL | undefined)[] = [companyCondition(scope, materials.companyName), ne(materials.specModel, '')];
  if (wanted.keyword) conditions.push(containsIgnoringCase(materials.specModel, wanted.keyword));
  if (wanted.name) conditions.push(containsIgnoringCase(materials.name, wanted.name));
  const values = await ctx.read(async (q) => {
    const scanned = q
      .select({ specModel: materials.specModel })
      .from(materials)
      .where(and(...conditions))
      .orderBy(desc(materials.id))
      .limit(SPEC_SUGGESTION_SCAN_LIMIT)
      .as('scanned');
    const rows = await q
      .select({ specModel: scanned.specModel })
      .from(scanned)
      .groupBy(scanned.specModel)
      .orderBy(desc(count()), asc(scanned.specModel))
      .limit(SPEC_SUGGESTION_LIMIT);
    return rows.map((row) => row.specModel);
  });
  specSuggestionCache.set(key, values, ctx.now, generation);
  return values;
}
