import { asc } from 'drizzle-orm';
import { sheetOf, writeWorkbook, type CellType, type SheetColumn, type UseCaseContext } from '@wms/platform';
import { materials } from '../../db/schema/index.js';
import { hiddenMaterialFields } from './field-permissions.js';
import { materialListWhere, selectMaterialsWithSupply } from './material-supply.js';
import { toMaterialView } from './material-mapper.js';
import type { MaterialFilter, MaterialView } from './schemas.js';

const EXPORT_COLUMNS: { field: keyof MaterialView; header: string; type: CellType }[] = [
  { field: 'base_id', header: '物料ID', type: 'number' },
  { field: 'name', header: '名称', type: 'text' },
  { field: 'spec_model', header: '规格型号', type: 'text' },
  { field: 'category', header: '分类', type: 'text' },
  { field: 'unit', header: '单位', type: 'text' },
  { field: 'company_name', header: '公司', type: 'text' },
  { field: 'purchaseLink', header: '采购链接', type: 'text' },
  { field: 'referencePrice', header: '参考价', type: 'number' },
  { field: 'productImageRemark', header: '产品图片备注', type: 'text' },
  { field: 'manualLinkRemark', header: '说明书链接备注', type: 'text' },
  { field: 'remark', header: '备注', type: 'text' },
  { field: 'red_threshold', header: '红色阈值', type: 'number' },
  { field: 'yellow_threshold', header: '黄色阈值', type: 'number' },
  { field: 'target_threshold', header: '目标库存', type: 'number' },
  { field: 'stock_quantity', header: '实物库存', type: 'number' },
  { field: 'available_quantity', header: '可用数量', type: 'number' },
  { field: 'in_transit_quantity', header: '在途数量', type: 'number' },
  { field: 'effective_supply', header: '有效库存', type: 'number' },
  { field: 'alert_level', header: '预警级别', type: 'text' },
  { field: 'created_at', header: '创建时间', type: 'datetime' },
  { field: 'updated_at', header: '更新时间', type: 'datetime' },
];

export const MATERIAL_EXPORT_FILE_NAME = '物料清单.xlsx';

/**
 * The list's rows (same filter, no paging) as xlsx. Rows go through the same mapper as the list,
 * so a field the caller may not read is neither a column nor a value; the company filter counts
 * only for cross-domain callers (ctx.scope). Times are Beijing date cells; text never runs as a formula
 * (writeWorkbook).
 */
export async function exportMaterials(ctx: UseCaseContext, filter: MaterialFilter): Promise<Buffer> {
  const hidden = hiddenMaterialFields(ctx.actor);
  const where = materialListWhere(ctx.scope(filter.company), filter);
  const rows = await ctx.read((q) => selectMaterialsWithSupply(q).where(where).orderBy(asc(materials.id)));
  const columns: SheetColumn<MaterialView>[] = EXPORT_COLUMNS.filter((column) => !hidden.has(column.field)).map((column) => ({
    header: column.header,
    type: column.type,
    value: (view) => view[column.field],
  }));
  return writeWorkbook([sheetOf({ name: '物料', columns, rows: rows.map((row) => toMaterialView(row.material, hidden, row.supply)) })]);
}
