import { count, desc, inArray } from 'drizzle-orm';
import { sheetOf, writeWorkbook, type SheetColumn, type UseCaseContext } from '@wms/platform';
import { stockRows, type StockKind } from '../../db/schema/index.js';
import { priceVisibilityOf, type PriceVisibility } from './price-visibility.js';
import { STOCK_KIND_LABELS, type StockFilter, type StockRowView } from './schemas.js';
import { toStockRowView } from './stock-mapper.js';
import { matchingRowIds } from './stock-read-service.js';
import { flattenJoined, selectStockRows } from './stock-rows.js';

/** At most this many rows (the scrap export's cap, spec 8); a larger result is cut and the file name says so. */
export const STOCK_EXPORT_CAP = 20000;

type PriceColumn = keyof PriceVisibility;

const COLUMNS: Array<SheetColumn<StockRowView> & { price?: PriceColumn }> = [
  { header: 'ID', type: 'number', value: (row) => row.id },
  { header: '库存类别', value: (row) => STOCK_KIND_LABELS[row.source_table as StockKind] ?? row.source_table },
  { header: '条码', type: 'text', value: (row) => row.sku },
  { header: '物料ID', type: 'number', value: (row) => row.base_id },
  { header: '物料名称', type: 'text', value: (row) => row.material_name },
  { header: '规格型号', type: 'text', value: (row) => row.spec_model },
  { header: '分类', type: 'text', value: (row) => row.category },
  { header: '单位', type: 'text', value: (row) => row.unit },
  { header: '公司', type: 'text', value: (row) => row.company_name },
  { header: '库存数量', type: 'number', value: (row) => row.stock_quantity },
  { header: '可用数量', type: 'number', value: (row) => row.available_quantity },
  { header: '入库数量', type: 'number', value: (row) => row.in_quantity },
  { header: '状态', type: 'text', value: (row) => row.status },
  { header: '库位', type: 'text', value: (row) => row.warehouse_location },
  { header: '批次号', type: 'text', value: (row) => row.batch_number },
  { header: '序列号', type: 'text', value: (row) => row.serial_number },
  { header: '入库日期', type: 'date', value: (row) => row.in_date },
  { header: '生产日期', type: 'date', value: (row) => row.production_date },
  { header: '采购申请', type: 'number', value: (row) => row.request_id },
  { header: 'BOM版本', type: 'number', value: (row) => row.bom_version_id },
  { header: '单位成本', type: 'number', value: (row) => row.unit_cost, price: 'unitCost' },
  { header: '参考价', type: 'number', value: (row) => row.referencePrice, price: 'referencePrice' },
  { header: '备注', type: 'text', value: (row) => row.remark },
  { header: '创建时间', type: 'datetime', value: (row) => row.created_at },
  { header: '更新时间', type: 'datetime', value: (row) => row.updated_at },
];

/**
 * GET /inbound/stock/export: every row the list's filter matches (company scope included; no paging), newest
 * first, as xlsx through the platform's writer (times in Beijing time, text never a formula). The rows go
 * through the list's mapper, and a price column the caller may not read is left out (absent, not empty),
 * like the field in the list.
 */
export async function exportStockRows(ctx: UseCaseContext, filter: StockFilter): Promise<{ fileName: string; workbook: Buffer }> {
  const matching = matchingRowIds(ctx.scope(filter.company), filter);
  const prices = priceVisibilityOf(ctx.actor);
  const { rows, total } = await ctx.read(async (q) => {
    const ids = q.select({ id: matching.id }).from(matching).orderBy(desc(matching.id)).limit(STOCK_EXPORT_CAP + 1);
    const found = await selectStockRows(q).where(inArray(stockRows.id, ids)).orderBy(desc(stockRows.id));
    if (found.length <= STOCK_EXPORT_CAP) return { rows: found, total: found.length };
    const [counted] = await q.select({ n: count() }).from(matching);
    return { rows: found.slice(0, STOCK_EXPORT_CAP), total: counted?.n ?? found.length };
  });
  const workbook = await writeWorkbook([
    sheetOf<StockRowView>({
      name: '库存',
      columns: COLUMNS.filter((column) => !column.price || prices[column.price]).map(({ price: _price, ...column }) => column),
      rows: rows.map((row) => toStockRowView(flattenJoined(row), prices)),
    }),
  ]);
  const fileName = total > STOCK_EXPORT_CAP ? `库存清单（已截断：共${total}条，仅导出前${STOCK_EXPORT_CAP}条）.xlsx` : '库存清单.xlsx';
  return { fileName, workbook };
}
