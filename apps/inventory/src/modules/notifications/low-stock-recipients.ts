import type { Queryable } from '@wms/platform';
import { holderAddresses } from '../identity/permission-holders.js';

/** Who gets the low-stock mail (contract §8): holders of the pending pool, the purchasers. */
export const LOW_STOCK_RECIPIENT_CODE = 'inbound_purchase:pending_pool';

/** The mail addresses of the low-stock alert (contract §8). */
export function lowStockRecipients(q: Queryable, company: string): Promise<string[]> {
  return holderAddresses(q, company, LOW_STOCK_RECIPIENT_CODE);
}
