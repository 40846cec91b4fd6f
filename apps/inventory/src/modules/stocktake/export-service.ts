import { sql } from 'drizzle-orm';
import { Decimal, queryRows, writeWorkbook, type SheetColumn, type SheetSpec, type UseCaseContext } from '@wms/platform';
import type { StockKind, StocktakeSessionRow } from '../../db/schema/index.js';
import { STOCK_KIND_LABELS } from '../stock/schemas.js';
import { COUNT_ORDER, COUNTED_COLUMNS, countedRowsCte, type CountedRowRecord } from './counted-rows.js';
import { bookHidden, requireSession } from './sessions.js';

/** What a hidden book quantity reads as (spec 4.6 rules 3 and 8): a dash, never 0. */
const DASH = '—';

export const exportFileName = (sessionId: number) => `盘点_${sessionId}.xlsx`;

/**
 * GET /export-stocktake (spec 4.6 rule 8): four sheets — summary, variance detail, matched, not counted —
 * from one query of the session's rows, written by the platform's workbook writer. While a blind session is
 * active the book quantity and the variance are '—' on all four sheets (the database answers NULL for them);
 * counted items are still sorted into variance detail and matched, as the rule names both sheets. Counted
 * quantities are always shown.
 */
export async function exportStocktake(ctx: UseCaseContext, sessionId: number): Promise<Buffer> {
  const { session, rows } = await ctx.read(async (q) => {
    const found = await requireSession(q, ctx.scope(), sessionId);
    const source = { session: found, companies: { kind: 'one' as const, company: found.companyName }, hidden: bookHidden(found), classifyHidden: true };
    const records = await queryRows<CountedRowRecord>(q, sql`with ${countedRowsCte(source)} select ${COUNTED_COLUMNS} from counted c order by ${COUNT_ORDER}`);
    return { session: found, rows: records };
  });
  const hidden = bookHidden(session);
  const counted = rows.filter((row) => row.scanned);
  const notCounted = rows.filter((row) => !row.scanned);
  const differing = counted.filter((row) => !row.matched);
  const matched = counted.filter((row) => row.matched);
  const columns = detailColumns(hidden);
  const sheets: SheetSpec<never>[] = [
    sheet('盘点汇总', SUMMARY_COLUMNS, summaryOf(session, rows, hidden)),
    sheet('盘点差异明细', columns, differing),
    sheet('盘点一致', columns, matched),
    sheet('未盘点', columns, notCounted),
  ];
  return writeWorkbook(sheets);
}

function sheet<Row>(name: string, columns: SheetColumn<Row>[], rows: Row[]): SheetSpec<never> {
  return { name, columns, rows } as unknown as SheetSpec<never>; // writeWorkbook takes sheets of any row type
}

const quantity = (value: string | null) => (value === null ? null : new Decimal(value).toNumber());
/** A stored instant as a Date: the writer makes it a date cell in Beijing time (decisions Spreadsheet exports 3). */
const instant = (value: string | Date | null) => (value === null ? null : new Date(value));

function detailColumns(hidden: boolean): SheetColumn<CountedRowRecord>[] {
  const book = (value: (row: CountedRowRecord) => unknown) => (row: CountedRowRecord) => (hidden ? DASH : value(row));
  return [
    { header: '条码', width: 22, value: (row) => row.sku },
    { header: '库存类别', value: (row) => STOCK_KIND_LABELS[row.source_table as StockKind] ?? row.source_table },
    { header: '物料名称', width: 24, value: (row) => row.material_name },
    { header: '规格型号', width: 20, value: (row) => row.spec_model },
    { header: '单位', width: 8, value: (row) => row.unit },
    { header: '库位', width: 20, value: (row) => row.warehouse_location },
    { header: '批次号', value: (row) => (row.source_table === 'stock_product' ? '' : row.batch_number) },
    { header: '序列号', value: (row) => row.serial_number },
    { header: '状态', width: 8, value: (row) => row.status },
    { header: '账面数量', value: book((row) => quantity(row.stock_qty)) },
    { header: '实盘数量', value: (row) => quantity(row.counted_qty) },
    { header: '差异', value: book((row) => (row.drafted ? quantity(row.diff_qty) : null)) },
    { header: '盘点人', value: (row) => row.user_id },
    { header: '盘点时间', width: 20, type: 'datetime', value: (row) => instant(row.scan_time) },
    { header: '备注', width: 24, value: (row) => row.remark },
    { header: '盘点后账面变动', width: 14, value: (row) => (row.book_moved ? '是（需复盘）' : '') },
  ];
}

interface SummaryLine {
  item: string;
  value: unknown;
}

const SUMMARY_COLUMNS: SheetColumn<SummaryLine>[] = [
  { header: '项目', width: 20, value: (line) => line.item },
  { header: '内容', width: 48, value: (line) => line.value },
];

function summaryOf(session: StocktakeSessionRow, rows: CountedRowRecord[], hidden: boolean): SummaryLine[] {
  const sum = (values: Array<string | null>) => values.reduce((total, value) => (value === null ? total : total.plus(value)), new Decimal(0)).toNumber();
  const counted = rows.filter((row) => row.scanned);
  const shown = (value: () => unknown) => (hidden ? DASH : value());
  return [
    { item: '盘点会话', value: session.id },
    { item: '公司', value: session.companyName },
    { item: '模式', value: session.mode === 'blind' ? '盲盘' : '明盘' },
    { item: '范围', value: session.scopeType === 'full' ? '全盘' : `按库位：${session.scopeConfig.locations.join('、')}` },
    { item: '状态', value: session.status === 'active' ? '进行中' : '已结束' },
    { item: '发起人', value: session.initiatorName },
    { item: '开始时间', value: instant(session.startedAt) },
    { item: '结束时间', value: instant(session.finishedAt) },
    { item: '范围内物品数', value: rows.length },
    { item: '已盘物品数', value: counted.length },
    { item: '未盘物品数', value: rows.length - counted.length },
    { item: '一致', value: shown(() => counted.filter((row) => row.matched).length) },
    { item: '有差异', value: shown(() => counted.filter((row) => !row.matched).length) },
    { item: '账面数量合计', value: shown(() => sum(rows.map((row) => row.stock_qty))) },
    { item: '实盘数量合计', value: sum(counted.map((row) => row.counted_qty)) },
    { item: '差异合计', value: shown(() => sum(rows.filter((row) => row.drafted).map((row) => row.diff_qty))) },
    { item: '盘点后账面变动', value: rows.filter((row) => row.book_moved).length },
  ];
}
