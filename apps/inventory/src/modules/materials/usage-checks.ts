import { and, count, eq } from 'drizzle-orm';
import { AppError, type Tx } from '@wms/platform';
import { bomLines, bomVersions, purchaseRequests, stockRows, transDefectiveGoods } from '../../db/schema/index.js';

/** Something that keeps a material from being deleted while it refers to it. */
export interface MaterialUsageCheck {
  /** What uses the material, as the user reads it in the refusal. */
  label: string;
  count(tx: Tx, baseId: number): Promise<number>;
}

/**
 * Every use that blocks a delete (contract §4: stock rows and BOM lines). A module that starts
 * referring to materials adds its check here; the foreign keys are the last line of defence.
 */
export const MATERIAL_USAGE_CHECKS: readonly MaterialUsageCheck[] = [
  {
    label: '库存记录',
    count: async (tx, baseId) => {
      const [row] = await tx.select({ n: count() }).from(stockRows).where(eq(stockRows.baseId, baseId));
      return row?.n ?? 0;
    },
  },
  {
    label: '采购申请',
    count: async (tx, baseId) => {
      const [row] = await tx.select({ n: count() }).from(purchaseRequests).where(eq(purchaseRequests.baseId, baseId));
      return row?.n ?? 0;
    },
  },
  {
    label: 'BOM 版本（作为父件）',
    count: async (tx, baseId) => {
      const [row] = await tx.select({ n: count() }).from(bomVersions).where(eq(bomVersions.parentId, baseId));
      return row?.n ?? 0;
    },
  },
  {
    label: 'BOM 子件行',
    count: async (tx, baseId) => {
      const [row] = await tx.select({ n: count() }).from(bomLines).where(eq(bomLines.childId, baseId));
      return row?.n ?? 0;
    },
  },
  {
    // Defective goods still held (restock or scrap pending) outlive their stock row: the row may be gone.
    label: '不良品台账（待处理）',
    count: async (tx, baseId) => {
      const [row] = await tx
        .select({ n: count() })
        .from(transDefectiveGoods)
        .where(and(eq(transDefectiveGoods.baseId, baseId), eq(transDefectiveGoods.status, '待处理')));
      return row?.n ?? 0;
    },
  },
];

/**
 * Refuses with IN_USE, naming every use, while anything still refers to the material: a delete, or a move
 * to another company (the uses would stay with the records of the old one).
 */
export async function assertMaterialUnused(tx: Tx, baseId: number, refused: '删除' | '移到其他公司' = '删除'): Promise<void> {
  const usages: { label: string; count: number }[] = [];
  for (const check of MATERIAL_USAGE_CHECKS) {
    const n = await check.count(tx, baseId);
    if (n > 0) usages.push({ label: check.label, count: n });
  }
  if (usages.length === 0) return;
  const described = usages.map((usage) => `${usage.label} ${usage.count} 条`).join('、');
  throw new AppError('IN_USE', `物料仍在使用中，不能${refused}（${described}）`, { usages });
}
