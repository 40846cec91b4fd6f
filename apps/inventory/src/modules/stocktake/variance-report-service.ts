import { sql } from 'drizzle-orm';
import { AppError, pagingOf, queryRows, timeRangeCondition, toQuantity, toQuantityOrZero, type UseCaseContext } from '@wms/platform';
import { MOVED_REASON_SQL } from './book-moved.js';
import { draftKeywordCondition } from './drafts-service.js';
import type { VarianceQuery, VarianceRow } from './schemas.js';
import { bookHidden, requireSession } from './sessions.js';

interface VarianceRecord {
  draft_id: number;
  uuid: string;
  stock_id: number;
  source_table: string;
  base_id: number;
  material_name: string | null;
  spec_model: string | null;
  warehouse_location: string | null;
  counted_qty: string;
  book_qty: string | null;
  book_qty_at_count: string | null;
  diff_qty: string | null;
  user_id: string;
  scan_time: string | Date;
  remark: string | null;
  moved_reason: string | null;
  adjusted_at: string | Date | null;
}

/**
 * GET /variance-report (contract §4): every count of the session against the book as it stands now (and as
 * it stood when counted), with the moved flag; a deleted row has no book. While a blind session is active
 * the book and the difference are null and only_diff is 400 (it would tell the book). keyword as the draft
 * list's; start_date / end_date on the count's scan_time.
 */
export async function varianceReport(ctx: UseCaseContext, query: VarianceQuery) {
  const paging = pagingOf(query);
  return ctx.read(async (q) => {
    const session = await requireSession(q, ctx.scope(), query.session_id);
    const hidden = bookHidden(session);
    if (hidden && query.only_diff) {
      throw new AppError('STATUS_NOT_ALLOWED', '盲盘进行中，不能只看差异（账面数量在盘点结束后可见）', { field: 'only_diff' });
    }
    const keyword = draftKeywordCondition(query.keyword, sql`d`);
    const scanned = timeRangeCondition(sql`d.scan_time`, query.start_date, query.end_date);
    const where = sql`d.session_id = ${session.id} ${query.only_diff ? sql`and (s.id is null or d.quantity <> s.stock_quantity)` : sql``}
      ${keyword ? sql`and ${keyword}` : sql``} ${scanned ? sql`and ${scanned}` : sql``}`;
    const hide = (expression: ReturnType<typeof sql>) => (hidden ? sql`null::text` : expression);
    const [rows, [counted]] = await Promise.all([
      queryRows<VarianceRecord>(
        q,
        sql`select d.id as draft_id, d.uuid, d.stock_id, d.source_table, d.base_id, m.name as material_name, m.spec_model,
                   s.warehouse_location, d.quantity::text as counted_qty,
                   ${hide(sql`s.stock_quantity::text`)} as book_qty, ${hide(sql`d.book_quantity::text`)} as book_qty_at_count,
                   ${hide(sql`(d.quantity - coalesce(s.stock_quantity, 0))::text`)} as diff_qty,
                   d.user_id, d.scan_time, d.remark, ${MOVED_REASON_SQL} as moved_reason, d.adjusted_at
              from stocktake_drafts d
              left join stock_rows s on s.id = d.stock_id
              left join materials m on m.id = d.base_id
             where ${where}
             order by d.id limit ${paging.limit} offset ${paging.offset}`,
      ),
      queryRows<{ n: number }>(q, sql`select count(*)::int as n from stocktake_drafts d left join stock_rows s on s.id = d.stock_id where ${where}`),
    ]);
    return {
      items: rows.map((row) => toVarianceRow(row, hidden)),
      total: counted?.n ?? 0,
      page: paging.page,
      limit: paging.limit,
      session_id: session.id,
      mode: session.mode,
      status: session.status,
      book_hidden: hidden,
    };
  });
}

const isoOf = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

function toVarianceRow(row: VarianceRecord, hidden: boolean): VarianceRow {
  return {
    draft_id: row.draft_id,
    uuid: row.uuid,
    stock_id: row.stock_id,
    source_table: row.source_table,
    base_id: row.base_id,
    material_name: row.material_name,
    spec_model: row.spec_model,
    warehouse_location: row.warehouse_location,
    counted_qty: toQuantityOrZero(row.counted_qty),
    book_qty: hidden ? null : toQuantity(row.book_qty),
    book_qty_at_count: hidden ? null : toQuantity(row.book_qty_at_count),
    diff_qty: hidden ? null : toQuantity(row.diff_qty),
    user_id: row.user_id,
    scan_time: isoOf(row.scan_time)!,
    remark: row.remark,
    book_moved: row.moved_reason !== null,
    moved_reason: row.moved_reason,
    adjusted_at: isoOf(row.adjusted_at),
  };
}
