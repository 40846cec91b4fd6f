import { count, desc } from 'drizzle-orm';
import { can, sheetOf, writeWorkbook, type SheetColumn, type UseCaseContext } from '@wms/platform';
import { transScrap } from '../../db/schema/index.js';
import { toScrapRecordView } from './record-mapper.js';
import { DEFAULT_CATEGORY, scrapRecordsWhere } from './records-filter.js';
import { SCRAP_LOSS_AMOUNT } from './request-access.js';
import type { ScrapRecordsQuery, ScrapRecordView } from './schemas.js';

/** spec 8: at most this many rows; a larger result is cut and says so in the file name. */
export const SCRAP_EXPORT_CAP = 20000;

const SOURCE_LABELS: Record<string, string> = {
  stock_buy: '外购件库存',
  stock_semi: '半成品库存',
  stock_product: '成品库存',
  trans_borrow: '借用物品',
  trans_defective_goods: '不良品台账',
};

const COLUMNS: Array<SheetColumn<ScrapRecordView> & { amount?: true }> = [
  { header: '报废时间', type: 'datetime', value: (row) => row.scrapped_at },
  { header: '来源', value: (row) => SOURCE_LABELS[row.source_table] ?? row.source_table },
  { header: '条码', type: 'text', value: (row) => row.sku },
  { header: '物料名称', type: 'text', value: (row) => row.material_name },
  { header: '规格型号', type: 'text', value: (row) => row.spec_model },
  { header: '单位', type: 'text', value: (row) => row.unit },
  { header: '报废数量', type: 'number', value: (row) => row.quantity },
  { header: '单位成本', type: 'number', value: (row) => row.cost_at_scrap, amount: true },
  { header: '损失金额', type: 'number', value: (row) => row.total_loss, amount: true },
  { header: '原因类别', value: (row) => row.reason_category ?? DEFAULT_CATEGORY },
  { header: '报废原因', type: 'text', value: (row) => row.reason },
  { header: '追踪号', type: 'text', value: (row) => row.track_ref },
  { header: '位置', type: 'text', value: (row) => row.location },
  { header: '经办人', type: 'text', value: (row) => row.operator },
  { header: '公司', type: 'text', value: (row) => row.company_name },
  { header: '报废申请', type: 'number', value: (row) => row.request_id },
];

/**
 * GET /scrap/records/export (spec 4.4, 8): every record the list's filter matches (no paging) as xlsx
 * through the platform's writer, newest first; amount columns only with scrap_list:loss_amount (absent,
 * not empty). More than 20,000 matches: the first 20,000 are written and the file name says so.
 */
export async function exportScrapRecords(ctx: UseCaseContext, query: ScrapRecordsQuery): Promise<{ fileName: string; workbook: Buffer }> {
  const where = scrapRecordsWhere(ctx, query);
  const showAmounts = can(ctx.actor, SCRAP_LOSS_AMOUNT);
  const { rows, total } = await ctx.read(async (q) => {
    const found = await q
      .select()
      .from(transScrap)
      .where(where)
      .orderBy(desc(transScrap.scrappedAt), desc(transScrap.id))
      .limit(SCRAP_EXPORT_CAP + 1);
    if (found.length <= SCRAP_EXPORT_CAP) return { rows: found, total: found.length };
    const [counted] = await q.select({ n: count() }).from(transScrap).where(where);
    return { rows: found.slice(0, SCRAP_EXPORT_CAP), total: counted?.n ?? found.length };
  });
  const workbook = await writeWorkbook([
    sheetOf<ScrapRecordView>({
      name: '报废记录',
      columns: COLUMNS.filter((column) => showAmounts || !column.amount).map(({ amount: _amount, ...column }) => column),
      rows: rows.map((row) => toScrapRecordView(row, showAmounts)),
    }),
  ]);
  const fileName =
    total > SCRAP_EXPORT_CAP ? `报废记录（已截断：共${total}条，仅导出前${SCRAP_EXPORT_CAP}条）.xlsx` : '报废记录.xlsx';
  return { fileName, workbook };
}
