import { eq } from 'drizzle-orm';
import { AppError, validationFailed, type Tx } from '@wms/platform';
import { bomVersions, type StockKind } from '../../db/schema/index.js';

/** The stock row a built-from link is checked against: its kind, material and company. */
export interface BuiltRow {
  sourceTable: StockKind;
  baseId: number;
  companyName: string;
}

/**
 * The BOM version a finished-product row says it was built from (decisions, BOM and import): only a
 * stock_product row may name one, and it must be a published version of the row's own material, in the
 * row's company (another company's version is as unknown as a missing one). null clears the link;
 * undefined leaves it as it is.
 */
export async function checkBuiltFrom(tx: Tx, row: BuiltRow, bomVersionId: number | null | undefined): Promise<number | null | undefined> {
  if (bomVersionId === undefined || bomVersionId === null) return bomVersionId;
  if (row.sourceTable !== 'stock_product') throw validationFailed('只有成品库存可以关联 BOM 版本', { field: 'bom_version_id' });
  const [version] = await tx.select().from(bomVersions).where(eq(bomVersions.id, bomVersionId));
  if (!version || version.companyName !== row.companyName) {
    throw new AppError('NOT_FOUND', `BOM 版本 ${bomVersionId} 不存在`, { field: 'bom_version_id' });
  }
  if (version.parentId !== row.baseId) {
    throw validationFailed(`BOM 版本 ${bomVersionId} 属于另一个物料（${version.parentId}），不是此成品的物料`, { field: 'bom_version_id' });
  }
  if (version.status !== 'published') {
    throw new AppError('STATUS_NOT_ALLOWED', `BOM 第 ${version.version} 版尚未发布，成品只能关联已发布的版本`, { field: 'bom_version_id' });
  }
  return bomVersionId;
}
