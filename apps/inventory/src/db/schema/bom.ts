import { sql } from 'drizzle-orm';
import { check, index, integer, numeric, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { materials } from './materials.js';

export const BOM_STATUSES = ['draft', 'published'] as const;
export type BomStatus = (typeof BOM_STATUSES)[number];

/**
 * One version of a parent item's bill of materials (spec 2.14). Versions are numbered per parent
 * (1, 2, …); at most one is a draft. A published version is never changed again: editing starts a new
 * draft, and the current BOM is the published version with the highest number. The BOM belongs to its
 * parent material's company (company_name is that company, kept for isolation and the audit record).
 */
export const bomVersions = pgTable(
  'bom_versions',
  {
    id: serial('id').primaryKey(),
    parentId: integer('parent_id')
      .notNull()
      .references(() => materials.id, { onDelete: 'restrict' }),
    companyName: text('company_name').notNull(),
    version: integer('version').notNull(),
    status: text('status').notNull().$type<BomStatus>(),
    /** The BOM-level remark, carried through draft save, draft read and publish. */
    remark: text('remark'),
    createdBy: integer('created_by'),
    publishedBy: integer('published_by'),
    publishedAt: timestamp('published_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('bom_versions_parent_version_unique').on(t.parentId, t.version),
    uniqueIndex('bom_versions_one_draft_per_parent').on(t.parentId).where(sql`${t.status} = 'draft'`),
    index('bom_versions_company_idx').on(t.companyName),
    check('bom_versions_status', sql`${t.status} IN ('draft', 'published')`),
    check('bom_versions_published_stamped', sql`${t.status} = 'draft' OR ${t.publishedAt} IS NOT NULL`),
    check('bom_versions_version_positive', sql`${t.version} > 0`),
  ],
);

/**
 * A child line of one BOM version: child material and its quantity of use per parent unit. Each row
 * carries parent_id, child_id and quantity, so its audit snapshot names the child and the quantity
 * (spec 2.12 rule 4) without looking anything up.
 */
export const bomLines = pgTable(
  'bom_lines',
  {
    id: serial('id').primaryKey(),
    bomVersionId: integer('bom_version_id')
      .notNull()
      .references(() => bomVersions.id, { onDelete: 'cascade' }),
    parentId: integer('parent_id')
      .notNull()
      .references(() => materials.id, { onDelete: 'restrict' }),
    childId: integer('child_id')
      .notNull()
      .references(() => materials.id, { onDelete: 'restrict' }),
    quantity: numeric('quantity').notNull(),
    remark: text('remark'),
    lineNo: integer('line_no').notNull(),
    companyName: text('company_name').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('bom_lines_version_child_unique').on(t.bomVersionId, t.childId),
    index('bom_lines_child_idx').on(t.childId),
    index('bom_lines_parent_idx').on(t.parentId),
    check('bom_lines_quantity_positive', sql`${t.quantity} > 0`),
    check('bom_lines_not_own_parent', sql`${t.childId} <> ${t.parentId}`),
  ],
);

export type BomVersionRow = typeof bomVersions.$inferSelect;
export type BomLineRow = typeof bomLines.$inferSelect;
