import { and, eq, gte, sql } from 'drizzle-orm';
import { AppError, companyCondition, Decimal, notFound, toQuantityOrZero, type CompanyScope, type Tx } from '@wms/platform';
import { transDefectiveGoods, type DefectiveGoodsRow, type DefectiveStatus } from '../../db/schema/index.js';

/** Locks one ledger entry of the caller's scope; unknown or another company's: 404. */
export async function lockLedgerEntry(tx: Tx, scope: CompanyScope, id: number): Promise<DefectiveGoodsRow> {
  const [entry] = await tx
    .select()
    .from(transDefectiveGoods)
    .where(and(eq(transDefectiveGoods.id, id), companyCondition(scope, transDefectiveGoods.companyName)))
    .for('update');
  if (!entry) throw notFound('不良品台账记录');
  return entry;
}

/**
 * 400 STATUS_NOT_ALLOWED when the entry is no longer 待处理, 400 QUANTITY_EXCEEDS when more than
 * remaining_qty is asked: the check of every taking (below) and of a scrap submission (which takes
 * nothing yet, spec 4.2).
 */
export function assertTakeable(entry: DefectiveGoodsRow, quantity: string): void {
  if (entry.status !== '待处理') {
    throw new AppError('STATUS_NOT_ALLOWED', `该不良品记录状态为「${entry.status}」，已处理完毕`, { status: entry.status });
  }
  if (new Decimal(quantity).greaterThan(entry.remainingQty)) {
    throw new AppError('QUANTITY_EXCEEDS', `数量 ${quantity} 超过剩余数量 ${toQuantityOrZero(entry.remainingQty)}`, {
      field: 'quantity',
      remaining_qty: toQuantityOrZero(entry.remainingQty),
    });
  }
}

/**
 * The one way quantity leaves the ledger (restock and scrap execution, spec 3.8): assertTakeable, then
 * at 0 the entry takes the end state of the action that emptied it (contract §8). Guarded by
 * remaining_qty >= quantity.
 */
export async function takeFromLedger(
  tx: Tx,
  entry: DefectiveGoodsRow,
  quantity: string,
  endState: Exclude<DefectiveStatus, '待处理'>,
  now: Date,
): Promise<DefectiveGoodsRow> {
  assertTakeable(entry, quantity);
  const remaining = sql`${transDefectiveGoods.remainingQty} - ${quantity}::numeric`;
  const [updated] = await tx
    .update(transDefectiveGoods)
    .set({
      remainingQty: remaining,
      status: sql`case when ${remaining} = 0 then ${endState} else '待处理' end`,
      updatedAt: now,
    })
    .where(and(eq(transDefectiveGoods.id, entry.id), gte(transDefectiveGoods.remainingQty, quantity)))
    .returning();
  if (!updated) throw new AppError('CONFLICT', '不良品记录已被修改，请重试');
  return updated;
}
