import type { Tx } from '@wms/platform';
import { transDefectiveGoods, type DefectiveGoodsRow, type TransReturnRow } from '../../db/schema/index.js';

/**
 * Takes a defective return into custody (spec 4.1 rule 2, 3.8): one ledger entry holding the whole
 * returned quantity, with the original row's sku and the material named without a join. Stock rows are
 * not touched: defective quantity never becomes allocatable.
 */
export async function takeIntoCustody(tx: Tx, returned: TransReturnRow, now: Date): Promise<DefectiveGoodsRow> {
  const [entry] = await tx
    .insert(transDefectiveGoods)
    .values({
      returnId: returned.id,
      sku: returned.sku,
      stockId: returned.stockId,
      sourceTable: returned.sourceTable,
      baseId: returned.baseId,
      materialName: returned.materialName,
      specModel: returned.specModel,
      quantity: returned.quantity,
      remainingQty: returned.quantity,
      status: '待处理',
      companyName: returned.companyName,
      createdAt: now,
      updatedAt: now,
    })
    .returning();
  return entry!;
}
