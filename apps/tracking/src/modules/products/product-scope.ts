import { inArray, sql, type SQL } from 'drizzle-orm';
import { forbidden } from '@wms/platform';
import { products, type LifecyclePhase } from '../../db/schema/index.js';
import { scopeShows, type DataScope } from '../identity/data-scope.js';

/**
 * The data scope as a WHERE condition on products (spec §3). Every list and statistics query over
 * products, or over tasks and task logs joined to their product, puts this into its one shared WHERE,
 * so totals and pages agree:
 *   unrestricted → undefined (no condition);
 *   empty scope  → an explicit false (nothing), never "no filter";
 *   otherwise    → lifecycle_phase IN (the visible phases).
 */
export function productScopeCondition(scope: DataScope): SQL | undefined {
  if (scope.unrestricted) return undefined;
  if (scope.phases.length === 0) return sql`false`;
  return inArray(products.lifecyclePhase, scope.phases);
}

/** A write to a product (or its tasks) outside the caller's scope is 403 (contract §8). */
export function assertOperable(scope: DataScope, phase: LifecyclePhase, serialNumber?: string): void {
  if (scopeShows(scope, phase)) return;
  const which = serialNumber ? `产品 ${serialNumber} ` : '该产品';
  throw forbidden(`${which}不在您的数据范围内，只能查看，不能操作`);
}
