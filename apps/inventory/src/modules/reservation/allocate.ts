import { Decimal } from '@wms/platform';
import type { StockKind } from '../../db/schema/stock.js';
import { quantityPerMaterial, type RequestedItem } from './lines.js';

/** What one material needs after merging the request lines that name it. */
export interface MaterialNeed {
  base_id: number;
  quantity: Decimal;
}

/** An allocatable stock row: 在库, of the request's company, with available_quantity > 0. */
export interface AllocationCandidate {
  id: number;
  base_id: number;
  source_table: StockKind;
  available_quantity: string;
}

export interface AllocatedLine {
  base_id: number;
  stock_id: number;
  source_table: StockKind;
  quantity: Decimal;
}

export interface Shortage {
  base_id: number;
  needed: Decimal;
  /** Everything the material has available in total. */
  remaining: Decimal;
}

/** Spec 4.1: lines naming the same material are merged, quantities summed, first appearance keeps the order. */
export function mergeByMaterial(items: readonly RequestedItem[]): MaterialNeed[] {
  return [...quantityPerMaterial(items)].map(([baseId, quantity]) => ({ base_id: baseId, quantity }));
}

/** Largest available first; equal availability goes to the lower id, so allocation is deterministic. */
function largestFirst(a: AllocationCandidate, b: AllocationCandidate): number {
  const byAvailable = new Decimal(b.available_quantity).comparedTo(a.available_quantity);
  return byAvailable !== 0 ? byAvailable : a.id - b.id;
}

/**
 * Allocates each need over its material's candidates, largest available first (spec 4.1). Strict:
 * a material whose candidates together hold less than needed is a shortage and gets no lines.
 * Pure: reads nothing and writes nothing.
 */
export function allocateLargestFirst(
  needs: readonly MaterialNeed[],
  candidates: readonly AllocationCandidate[],
): { lines: AllocatedLine[]; shortages: Shortage[] } {
  const lines: AllocatedLine[] = [];
  const shortages: Shortage[] = [];
  for (const need of needs) {
    const rows = candidates.filter((row) => row.base_id === need.base_id).sort(largestFirst);
    const total = rows.reduce((sum, row) => sum.plus(row.available_quantity), new Decimal(0));
    if (total.lessThan(need.quantity)) {
      shortages.push({ base_id: need.base_id, needed: need.quantity, remaining: total });
      continue;
    }
    let rest = need.quantity;
    for (const row of rows) {
      if (rest.isZero()) break;
      const take = Decimal.min(rest, row.available_quantity);
      if (take.lessThanOrEqualTo(0)) continue;
      lines.push({ base_id: need.base_id, stock_id: row.id, source_table: row.source_table, quantity: take });
      rest = rest.minus(take);
    }
  }
  return { lines, shortages };
}
