import { API_PREFIX } from '@wms/platform';

/**
 * Contract §2: a borrow path is served both as /borrow/... and as /transactions/borrow/... by the same
 * handler. Register every borrow route through this helper.
 */
export const BORROW_GROUPS = ['/borrow', '/transactions/borrow'] as const;

export function inBothBorrowGroups(suffix: string, register: (path: string) => void): void {
  for (const group of BORROW_GROUPS) register(`${API_PREFIX}${group}${suffix}`);
}
