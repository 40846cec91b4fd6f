import { API_PREFIX } from '@wms/platform';

/**
 * Contract §2: a path of the stock group is served both as /inbound/stock/... and as /stock/...
 * by the same handler. Register every stock-group route through this helper.
 */
export const STOCK_GROUPS = ['/inbound/stock', '/stock'] as const;

export function inBothStockGroups(suffix: string, register: (path: string) => void): void {
  for (const group of STOCK_GROUPS) register(`${API_PREFIX}${group}${suffix}`);
}
