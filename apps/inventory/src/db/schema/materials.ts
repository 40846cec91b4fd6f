import { sql } from 'drizzle-orm';
import { index, numeric, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';

/** Material master record; `id` is the spec's base_id. The company of a stock row is its material's. */
export const materials = pgTable(
  'materials',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    specModel: text('spec_model').notNull().default(''),
    category: text('category').notNull(),
    unit: text('unit').notNull().default(''),
    companyName: text('company_name').notNull(),
    purchaseLink: text('purchase_link'),
    referencePrice: numeric('reference_price', { precision: 10, scale: 2 }),
    productImageRemark: text('product_image_remark'),
    manualLinkRemark: text('manual_link_remark'),
    remark: text('remark'),
    redThreshold: numeric('red_threshold'),
    yellowThreshold: numeric('yellow_threshold'),
    targetThreshold: numeric('target_threshold'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('materials_company_category_idx').on(t.companyName, t.category),
    // A company's material ids without reading the table: the stock list's company condition hashes them
    // per query (index-only scan instead of a walk of every company's materials).
    index('materials_company_id_idx').on(t.companyName, t.id),
    // The material list and the stock list search these with a case-insensitive substring, written
    // lower(column) LIKE lower('%…%'): on lower() the trigram index serves only that, never an equality
    // lookup of the column (which it would win on cost and lose on time to the btree).
    index('materials_name_trgm_idx').using('gin', sql`lower(${t.name}) gin_trgm_ops`),
    index('materials_spec_model_trgm_idx').using('gin', sql`lower(${t.specModel}) gin_trgm_ops`),
    index('materials_category_trgm_idx').using('gin', sql`lower(${t.category}) gin_trgm_ops`),
  ],
);

export type MaterialRow = typeof materials.$inferSelect;
