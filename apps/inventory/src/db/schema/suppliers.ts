import { sql } from 'drizzle-orm';
import { check, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/**
 * A supplier of one company (beyond the spec, as in InvenTree, ERPNext and Odoo): named on purchase
 * request items and suggested by the pending pool. The name is unique inside its company.
 */
export const suppliers = pgTable(
  'suppliers',
  {
    id: serial('id').primaryKey(),
    companyName: text('company_name').notNull(),
    name: text('name').notNull(),
    contact: text('contact').notNull().default(''),
    /** Usual days from order to delivery; null = unknown. */
    leadTimeDays: integer('lead_time_days'),
    remark: text('remark'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('suppliers_company_name_unique').on(t.companyName, t.name),
    check('suppliers_lead_time_days', sql`${t.leadTimeDays} IS NULL OR ${t.leadTimeDays} >= 0`),
  ],
);

export type SupplierRow = typeof suppliers.$inferSelect;
