import type { UseCaseContext } from '@wms/platform';
import { checkLowStock } from '../notifications/low-stock.js';

/**
 * Scheduled with ctx.afterCommit after an outbound deducted stock (spec 6.2: the low-stock alert mail is
 * sent after commit, never inside the transaction): one mail per crossing of a threshold, to the
 * company's pending-pool holders. Never throws.
 */
export async function checkLowStockAfterOutbound(ctx: UseCaseContext, company: string, baseIds: readonly number[]): Promise<void> {
  await checkLowStock(ctx, company, baseIds);
}
