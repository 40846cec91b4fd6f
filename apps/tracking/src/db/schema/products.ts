import { sql } from 'drizzle-orm';
import { check, index, integer, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';
import { businessGroups } from './groups.js';

/** Lifecycle phases: the unit of the data scope (spec §3). */
export const LIFECYCLE_PHASES = ['PRODUCTION', 'AFTER_SALES'] as const;
export type LifecyclePhase = (typeof LIFECYCLE_PHASES)[number];

/** Product status (contract §8). The receivers move 待仓库收货 → 已入库 → 已出库. */
export const PRODUCT_STATUSES = ['生产中', '待仓库收货', '已入库', '已出库', '售后中'] as const;
export type ProductStatus = (typeof PRODUCT_STATUSES)[number];

/** Production stages in line order; a product's current_stage and a task's stage. */
export const PRODUCT_STAGES = ['装配', '调试', '老化', '检验', '包装'] as const;
export type ProductStage = (typeof PRODUCT_STAGES)[number];

/** serial_number is generated (SERIAL_PREFIX + uppercase hex, 16 characters) and never changes. */
export const products = pgTable(
  'products',
  {
    id: serial('id').primaryKey(),
    serialNumber: text('serial_number').notNull(),
    /** The material name of the product model. */
    model: text('model').notNull(),
    /** The inventory material id (base_id) of the model, when known. */
    baseId: integer('base_id'),
    status: text('status').$type<ProductStatus>().notNull().default('生产中'),
    lifecyclePhase: text('lifecycle_phase').$type<LifecyclePhase>().notNull().default('PRODUCTION'),
    currentStage: text('current_stage').$type<ProductStage>().notNull().default('装配'),
    /** The business group responsible for the product (by-group statistics). */
    groupId: integer('group_id').references(() => businessGroups.id, { onDelete: 'set null' }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
    /** When production finished (生产中 → 待仓库收货); cleared if it goes back to production. */
    completedAt: timestamp('completed_at', { withTimezone: true }),
    /** Set by the stock-in receiver (→ 已入库). */
    stockedInAt: timestamp('stocked_in_at', { withTimezone: true }),
    /** Set by the outbound receiver (→ 已出库). */
    shippedAt: timestamp('shipped_at', { withTimezone: true }),
  },
  (t) => [
    uniqueIndex('products_serial_number_unique').on(t.serialNumber),
    index('products_phase_status_idx').on(t.lifecyclePhase, t.status),
    index('products_group_idx').on(t.groupId),
    index('products_created_idx').on(t.createdAt),
    check('products_serial_length', sql`char_length(${t.serialNumber}) between 1 and 16`),
    check('products_status_valid', sql`${t.status} in ('生产中', '待仓库收货', '已入库', '已出库', '售后中')`),
    check('products_phase_valid', sql`${t.lifecyclePhase} in ('PRODUCTION', 'AFTER_SALES')`),
    check('products_stage_valid', sql`${t.currentStage} in ('装配', '调试', '老化', '检验', '包装')`),
  ],
);

export type ProductRow = typeof products.$inferSelect;

/**
 * Product models: known from stock-in notifications (keyed by the inventory base_id) or created by
 * hand (base_id null). Listed only under `${MATERIAL_CATEGORY_PREFIX}/`.
 */
export const materials = pgTable(
  'materials',
  {
    id: serial('id').primaryKey(),
    baseId: integer('base_id'),
    name: text('name').notNull(),
    /** Normalised slash path (segments trimmed, empty ones dropped). */
    category: text('category').notNull(),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    // NULLs are distinct: any number of hand-made materials, one row per inventory material
    uniqueIndex('materials_base_id_unique').on(t.baseId),
    uniqueIndex('materials_manual_unique').on(t.category, t.name).where(sql`${t.baseId} is null`),
    index('materials_category_idx').on(t.category),
  ],
);

export type MaterialRow = typeof materials.$inferSelect;
