import { sql } from 'drizzle-orm';
import { check, date, index, integer, numeric, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { bomVersions } from './bom.js';
import { materials } from './materials.js';

export const STOCK_KINDS = ['stock_buy', 'stock_semi', 'stock_product'] as const;
export type StockKind = (typeof STOCK_KINDS)[number];

export const STOCK_STATUSES = ['在库', '冻结', '不良品'] as const;
export type StockStatus = (typeof STOCK_STATUSES)[number];

/**
 * The three stock kinds (purchased parts, semi-finished goods, finished products) live in one table
 * with a `source_table` column: one id space, one unique sku index across all kinds, and one place
 * for the quantity invariant. See docs/decisions.md.
 */
export const stockRows = pgTable(
  'stock_rows',
  {
    id: serial('id').primaryKey(),
    sourceTable: text('source_table').notNull().$type<StockKind>(),
    sku: text('sku').notNull(),
    baseId: integer('base_id')
      .notNull()
      .references(() => materials.id, { onDelete: 'restrict' }),
    stockQuantity: numeric('stock_quantity').notNull(),
    availableQuantity: numeric('available_quantity').notNull(),
    inQuantity: numeric('in_quantity').notNull(),
    status: text('status').notNull().default('在库').$type<StockStatus>(),
    warehouseLocation: text('warehouse_location').notNull().default(''),
    batchNumber: text('batch_number'),
    serialNumber: text('serial_number'),
    inDate: date('in_date'),
    productionDate: date('production_date'),
    requestId: integer('request_id'),
    unitCost: numeric('unit_cost', { precision: 12, scale: 2 }),
    remark: text('remark'),
    /** stock_product only: the published BOM version the product was built from (decisions, BOM and import). */
    bomVersionId: integer('bom_version_id').references(() => bomVersions.id, { onDelete: 'restrict' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('stock_rows_sku_unique').on(t.sku),
    index('stock_rows_base_status_idx').on(t.baseId, t.status),
    check('stock_rows_available_range', sql`${t.availableQuantity} >= 0 AND ${t.availableQuantity} <= ${t.stockQuantity}`),
    check('stock_rows_quantities_positive', sql`${t.stockQuantity} >= 0 AND ${t.inQuantity} > 0`),
    check('stock_rows_kind', sql`${t.sourceTable} IN ('stock_buy', 'stock_semi', 'stock_product')`),
    check('stock_rows_status', sql`${t.status} IN ('在库', '冻结', '不良品')`),
    check('stock_rows_product_has_no_batch', sql`${t.sourceTable} <> 'stock_product' OR ${t.batchNumber} IS NULL`),
    check('stock_rows_bom_version_only_on_products', sql`${t.sourceTable} = 'stock_product' OR ${t.bomVersionId} IS NULL`),
    index('stock_rows_bom_version_idx').on(t.bomVersionId),
    // The stock list: keyword is a case-insensitive substring (lower(column) LIKE lower('%…%'), served by
    // trigrams of lower(column), so a scan's sku = … keeps the unique btree),
    // warehouse_location a prefix (LIKE '…%', served by the pattern-ops btree whatever the collation; with
    // base_id in it, a location's rows are counted by company without reading them).
    index('stock_rows_sku_trgm_idx').using('gin', sql`lower(${t.sku}) gin_trgm_ops`),
    index('stock_rows_batch_trgm_idx').using('gin', sql`lower(${t.batchNumber}) gin_trgm_ops`),
    index('stock_rows_serial_trgm_idx').using('gin', sql`lower(${t.serialNumber}) gin_trgm_ops`),
    index('stock_rows_location_trgm_idx').using('gin', sql`lower(${t.warehouseLocation}) gin_trgm_ops`),
    index('stock_rows_location_prefix_idx').on(t.warehouseLocation.op('text_pattern_ops'), t.baseId),
  ],
);

export type StockRow = typeof stockRows.$inferSelect;

/**
 * The company of every stock row (its material's), kept by triggers of stock_rows and materials
 * (migration stock_row_companies), never written by the service. A row's company lives on its material,
 * so listing one company's rows meant walking every row of every company and probing a hash of the
 * company's materials; one index range here counts them and finds a deep page without touching
 * stock_rows (docs/benchmarks.md, the stock list at 100,000 rows). Derived data: not audited.
 */
export const stockRowCompanies = pgTable(
  'stock_row_companies',
  {
    stockId: integer('stock_id')
      .primaryKey()
      .references(() => stockRows.id, { onDelete: 'cascade' }),
    /** As its material's (NOT NULL there; a null would match no company). */
    companyName: text('company_name'),
  },
  (t) => [index('stock_row_companies_company_idx').on(t.companyName, t.stockId)],
);
