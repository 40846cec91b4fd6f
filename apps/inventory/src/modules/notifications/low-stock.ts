import type { Tx, UseCaseContext } from '@wms/platform';
import { effectiveSupplies } from './effective-supply.js';
import { claimAlertLevel, lowerAlertLevel, severity } from './low-stock-level.js';
import { lowStockMail } from './low-stock-mail.js';
import { lowStockRecipients } from './low-stock-recipients.js';
import { sendMail, type OutgoingMail } from './mailer.js';

/**
 * The one seam every change of a material's supply or thresholds calls, inside its transaction (outbound,
 * stock edit, status change, delete, scrap, stocktake adjustment, threshold edit, …): the check for a
 * crossing runs after the transaction commits (spec 6.2), never inside it, and never fails the caller. A
 * recovery is recorded in the transaction itself: the after-commit checks run in the background, and one
 * that ran after the next change's commit would read the fall that followed and miss the recovery, so the
 * fall would not mail again.
 */
export async function scheduleLowStockCheck(ctx: UseCaseContext, tx: Tx, company: string, baseIds: readonly number[]): Promise<void> {
  const distinct = [...new Set(baseIds)];
  if (distinct.length === 0) return;
  await relaxLowStockLevels(tx, distinct, ctx.now);
  ctx.afterCommit(() => checkLowStock(ctx, company, distinct));
}

/**
 * The low-stock alert (spec 6.2, contract §8). Run it after the commit of a change that lowered stock
 * (ctx.afterCommit), never inside that transaction. For each material: the level its effective supply
 * stands at is compared with the level it was last alerted at; a crossing to a more severe level claims
 * that level and sends one mail to the company's pending-pool holders; a recovery lowers the stored
 * level without mail. Failures are logged and never reach the caller.
 */
export async function checkLowStock(ctx: UseCaseContext, company: string, baseIds: readonly number[]): Promise<void> {
  if (baseIds.length === 0) return;
  try {
    const mails = await ctx.transaction((tx) => claimCrossings(tx, company, baseIds, ctx.now));
    for (const mail of mails) await sendMail(ctx, mail);
  } catch (err) {
    console.error('[low-stock] 库存预警检查失败', err);
  }
}

async function claimCrossings(tx: Tx, company: string, baseIds: readonly number[], now: Date): Promise<OutgoingMail[]> {
  const crossings = [];
  for (const material of await effectiveSupplies(tx, baseIds, { company })) {
    const level = material.level;
    if (severity(level) < severity(material.alertedLevel)) await lowerAlertLevel(tx, material.baseId, level, now);
    if (level && severity(level) > severity(material.alertedLevel) && (await claimAlertLevel(tx, material.baseId, level, now))) {
      crossings.push({ material, level });
    }
  }
  if (crossings.length === 0) return [];
  const recipients = await lowStockRecipients(tx, company);
  if (recipients.length === 0) {
    console.warn(`[low-stock] ${company} 没有可接收库存预警的用户（需 inbound_purchase:pending_pool 且有邮箱）`);
    return [];
  }
  return crossings.map(({ material, level }) => lowStockMail(material, level, recipients));
}

/**
 * Inside a transaction that raised stock (stock-in, good return, restock): a material whose supply rose
 * above a level it was alerted at comes down to its current level, so the next fall is a new crossing.
 */
export async function relaxLowStockLevels(tx: Tx, baseIds: readonly number[], now: Date): Promise<void> {
  for (const material of await effectiveSupplies(tx, baseIds, { onlyAlerted: true })) {
    const level = material.level;
    if (severity(level) < severity(material.alertedLevel)) await lowerAlertLevel(tx, material.baseId, level, now);
  }
}
