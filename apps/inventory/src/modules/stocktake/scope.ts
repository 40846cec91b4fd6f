import { sql, type SQL } from 'drizzle-orm';
import { AppError } from '@wms/platform';
import type { ScopeConfig, StocktakeScopeType, StocktakeSessionRow } from '../../db/schema/index.js';
import { normalizeLocation } from '../stock/location.js';

export const MAX_SCOPE_LOCATIONS = 2000;

/**
 * Spec 4.6 rule 1 and contract §4: scope_type full has no locations (any sent are ignored); active needs a
 * non-empty list, each entry normalised like a stock location (segments trimmed), de-duplicated in first-seen
 * order, at most 2000 after that. Anything else is 400 SCOPE_INVALID.
 */
export function frozenScope(scopeType: string, locations: readonly string[] | undefined): { scopeType: StocktakeScopeType; config: ScopeConfig } {
  if (scopeType === 'full') return { scopeType, config: { locations: [] } };
  if (scopeType !== 'active') {
    throw new AppError('SCOPE_INVALID', `盘点范围 scope_type 只能是 full 或 active，收到「${scopeType}」`, { field: 'scope_type' });
  }
  const distinct = [...new Set((locations ?? []).map((location) => normalizeLocation(location) ?? '').filter(Boolean))];
  if (distinct.length === 0) {
    throw new AppError('SCOPE_INVALID', '按库位盘点（active）需要至少一个库位 scope_config.locations', { field: 'scope_config.locations' });
  }
  if (distinct.length > MAX_SCOPE_LOCATIONS) {
    throw new AppError('SCOPE_INVALID', `盘点库位最多 ${MAX_SCOPE_LOCATIONS} 个（去重后 ${distinct.length} 个）`, {
      field: 'scope_config.locations',
      count: distinct.length,
      max: MAX_SCOPE_LOCATIONS,
    });
  }
  return { scopeType, config: { locations: distinct } };
}

/** A frozen location covers itself and everything below it: A/01 covers A/01 and A/01/03, not A/010. */
export function locationInScope(session: Pick<StocktakeSessionRow, 'scopeType' | 'scopeConfig'>, location: string): boolean {
  if (session.scopeType === 'full') return true;
  return session.scopeConfig.locations.some((scoped) => location === scoped || location.startsWith(`${scoped}/`));
}

/** The same rule as SQL over a location column (undefined: the full scope, no condition). */
export function scopeCondition(session: Pick<StocktakeSessionRow, 'scopeType' | 'scopeConfig'> | null, location: SQL): SQL | undefined {
  if (!session || session.scopeType === 'full') return undefined;
  const locations = session.scopeConfig.locations;
  return sql`exists (select 1 from unnest(${sql.param(locations)}::text[]) as scoped(loc)
    where ${location} = scoped.loc or starts_with(${location}, scoped.loc || '/'))`;
}
