import { sql, type SQL } from 'drizzle-orm';
import { companyCondition, type CompanyScope, keywordMatch, toQuantity } from '@wms/platform';
import { SYSTEM_OPERATOR, type StocktakeSessionRow } from '../../db/schema/index.js';
import type { CountItemView, StatusFilter } from './schemas.js';
import { MOVED_REASON_SQL } from './book-moved.js';
import { scopeCondition } from './scope.js';

/**
 * The stock rows of a session joined with its counts, as one set-based query (never one query per row):
 * rows of the session's company inside the frozen scope, zero-stock rows only when counted in this session
 * (spec 4.6 rule 3). Without a session (missing), the caller's company rows with no counts.
 * `hidden` selects NULL instead of the book quantity, so a blind session's book never leaves the database.
 */
export interface CountedRowsSource {
  session: StocktakeSessionRow | null;
  /** The company condition: the session's company, or the caller's scope when there is no session. */
  companies: CompanyScope;
  hidden: boolean;
  /**
   * Whether each count matches the book, even when the book is hidden: the export sorts counted items into
   * its matched and variance sheets in every session (spec 4.6 rule 8), writing '—' for the book.
   */
  classifyHidden?: boolean;
}

/** A draft counts as "scanned" when a person wrote it; generated (system) rows are "not counted". */
const SCANNED = sql`(d.id is not null and d.user_id <> ${SYSTEM_OPERATOR})`;
/** In the merged rows the stock row always exists: moved is MOVED_REASON_SQL not null. */
const BOOK_MOVED = sql`(d.id is not null and (${MOVED_REASON_SQL}) is not null)`;

export function countedRowsCte(source: CountedRowsSource): SQL {
  const sessionId = source.session?.id ?? 0;
  const company = companyCondition(source.companies, sql.raw('m.company_name'));
  const scope = scopeCondition(source.session, sql.raw('s.warehouse_location'));
  const conditions = [company, scope].filter((condition): condition is SQL => condition !== undefined);
  const stockQty = source.hidden ? sql`null::text` : sql`s.stock_quantity::text`;
  const matched = source.hidden && !source.classifyHidden ? sql`null::boolean` : sql`d.id is not null and d.quantity = s.stock_quantity`;
  const diffQty = source.hidden ? sql`null::text` : sql`case when d.id is not null then (d.quantity - s.stock_quantity)::text end`;
  return sql`counted as (
    select s.id as stock_id, s.source_table, s.sku, s.base_id, s.warehouse_location, s.batch_number, s.serial_number, s.status,
           m.name as material_name, m.spec_model, m.unit,
           ${stockQty} as stock_qty, d.quantity::text as counted_qty, ${diffQty} as diff_qty,
           ${SCANNED} as scanned, d.id is not null as drafted,
           ${matched} as matched,
           d.user_id, d.scan_time, d.remark, ${BOOK_MOVED} as book_moved
      from stock_rows s
      join materials m on m.id = s.base_id
      left join stocktake_drafts d on d.session_id = ${sessionId} and d.stock_id = s.id
     where (s.stock_quantity > 0 or d.id is not null)
       ${conditions.length ? sql`and ${sql.join(conditions, sql` and `)}` : sql``}
  )`;
}

export function statusCondition(filter: StatusFilter | undefined): SQL | undefined {
  switch (filter) {
    case 'scanned':
      return sql`c.scanned`;
    case 'unscanned':
      return sql`not c.scanned`;
    case 'match':
      return sql`c.drafted and c.matched`;
    case 'diff':
      return sql`c.drafted and not c.matched`;
    default:
      return undefined;
  }
}

export function keywordCondition(keyword: string | undefined): SQL | undefined {
  return keywordMatch(keyword, ...['sku', 'material_name', 'spec_model', 'warehouse_location', 'batch_number', 'serial_number'].map((column) => sql.raw(`c.${column}`)));
}

/** The walk order of a count: by location, then row. */
export const COUNT_ORDER = sql`c.warehouse_location, c.stock_id`;

/** Columns of one counted row as the query answers them (numbers as text, exact). */
export interface CountedRowRecord {
  stock_id: number;
  source_table: string;
  sku: string;
  base_id: number;
  warehouse_location: string;
  batch_number: string | null;
  serial_number: string | null;
  status: string;
  material_name: string;
  spec_model: string;
  unit: string;
  stock_qty: string | null;
  counted_qty: string | null;
  diff_qty: string | null;
  scanned: boolean;
  drafted: boolean;
  matched: boolean | null;
  user_id: string | null;
  scan_time: string | Date | null;
  remark: string | null;
  book_moved: boolean | null;
}

export const COUNTED_COLUMNS = sql`c.stock_id, c.source_table, c.sku, c.base_id, c.warehouse_location, c.batch_number, c.serial_number,
  c.status, c.material_name, c.spec_model, c.unit, c.stock_qty, c.counted_qty, c.diff_qty, c.scanned, c.drafted, c.matched,
  c.user_id, c.scan_time, c.remark, c.book_moved`;

const isoOf = (value: string | Date | null) => (value === null ? null : new Date(value).toISOString());

/** The one mapping of a counted row to its answer; `hidden` nulls the book again (belt and braces). */
export function toCountItemView(row: CountedRowRecord, hidden: boolean): CountItemView {
  return {
    stock_id: row.stock_id,
    source_table: row.source_table,
    uuid: row.sku,
    sku: row.sku,
    base_id: row.base_id,
    material_name: row.material_name,
    spec_model: row.spec_model,
    unit: row.unit,
    warehouse_location: row.warehouse_location,
    batch_number: row.source_table === 'stock_product' ? '' : row.batch_number,
    serial_number: row.serial_number,
    status: row.status,
    stock_qty: hidden ? null : toQuantity(row.stock_qty),
    counted_qty: toQuantity(row.counted_qty),
    diff_qty: hidden ? null : toQuantity(row.diff_qty),
    scanned: row.scanned,
    user_id: row.user_id,
    scan_time: isoOf(row.scan_time),
    remark: row.remark,
    book_moved: Boolean(row.book_moved),
  };
}
