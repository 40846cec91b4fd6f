import { bigint, customType, index, integer, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { materials } from './materials.js';

/** The contrib `cube` type (migration 0019): a point of up to 100 float dimensions. */
const cube = customType<{ data: number[]; driverData: string }>({
  dataType: () => 'cube',
  toDriver: (value) => `(${value.join(',')})`,
  fromDriver: (value) => value.replace(/[()\s]/g, '').split(',').map(Number),
});

/**
 * Photos of a material (issue 13, image search). The bytes live in a file under DATA_DIR (storage_path is
 * relative to it), so the audit record of a row stays small; the row carries the search features: a 64-bit
 * DCT perceptual hash of the upright image and a colour/edge descriptor (image-features.ts) in a cube with
 * a GiST index. The column name ends in "embedding", so the audit views hide it (spec 2.13).
 */
export const materialImages = pgTable(
  'material_images',
  {
    id: serial('id').primaryKey(),
    baseId: integer('base_id')
      .notNull()
      .references(() => materials.id, { onDelete: 'cascade' }),
    companyName: text('company_name').notNull(),
    fileName: text('file_name').notNull(),
    storagePath: text('storage_path').notNull(),
    mime: text('mime').notNull(),
    byteSize: integer('byte_size').notNull(),
    width: integer('width').notNull(),
    height: integer('height').notNull(),
    phash: bigint('phash', { mode: 'bigint' }).notNull(),
    colorEmbedding: cube('color_embedding').notNull(),
    createdBy: integer('created_by'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('material_images_base_idx').on(t.baseId),
    index('material_images_company_idx').on(t.companyName),
    index('material_images_embedding_gist').using('gist', t.colorEmbedding),
  ],
);

export type MaterialImageRow = typeof materialImages.$inferSelect;
