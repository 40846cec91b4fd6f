import { asc } from 'drizzle-orm';
import { writeWorkbook, type SheetColumn, type SheetSpec, type UseCaseContext } from '@wms/platform';
import { materials } from '../../db/schema/index.js';
import { hiddenMaterialFields } from './field-permissions.js';
import { materialWhere } from './material-filter.js';
import { toMaterialView } from './material-mapper.js';
import type { MaterialFilter, MaterialView } from './schemas.js';

const EXPORT_COLUMNS: { field: keyof MaterialView; header: string; width?: number }[] = [
  { field: 'base_id', header: '物料ID', width: 10 },
  { field: 'name', header: '名称', width: 24 },
  { field: 'spec_model', header: '规格型号', width: 24 },
  { field: 'category', header: '分类', width: 28 },
  { field: 'unit', header: '单位', width: 8 },
  { field: 'company_name', header: '公司' },
  { field: 'purchaseLink', header: '采购链接', width: 30 },
  { field: 'referencePrice', header: '参考价' },
  { field: 'productImageRemark', header: '产品图片备注', width: 24 },
  { field: 'manualLinkRemark', header: '说明书链接备注', width: 24 },
  { field: 'remark', header: '备注', width: 24 },
  { field: 'red_threshold', header: '红色阈值' },
  { field: 'yellow_threshold', header: '黄色阈值' },
  { field: 'target_threshold', header: '目标库存' },
  { field: 'created_at', header: '创建时间', width: 26 },
  { field: 'updated_at', header: '更新时间', width: 26 },
];

export const MATERIAL_EXPORT_FILE_NAME = '物料清单.xlsx';

/**
 * The list's rows (same filter, no paging) as xlsx. Rows go through the same mapper as the list,
 * so a field the caller may not read is neither a column nor a value; the company filter counts
 * only for cross-domain callers (ctx.scope). Formula-like cells are neutralised by writeWorkbook.
 */
export async function exportMaterials(ctx: UseCaseContext, filter: MaterialFilter): Promise<Buffer> {
  const hidden = hiddenMaterialFields(ctx.actor);
  const where = materialWhere(ctx.scope(filter.company), filter);
  const rows = await ctx.read((q) => q.select().from(materials).where(where).orderBy(asc(materials.id)));
  const columns: SheetColumn<MaterialView>[] = EXPORT_COLUMNS.filter((column) => !hidden.has(column.field)).map((column) => ({
    header: column.header,
    width: column.width,
    value: (view) => view[column.field],
  }));
  const sheet: SheetSpec<MaterialView> = { name: '物料', columns, rows: rows.map((row) => toMaterialView(row, hidden)) };
  return writeWorkbook([sheet as unknown as SheetSpec<never>]); // writeWorkbook takes sheets of any row type
}
