import { and, asc, count, eq } from 'drizzle-orm';
import { API_PREFIX, companyCondition, notFound, requireUploadedFile, validationFailed, type Queryable, type Tx, type Upload, type UseCaseContext } from '@wms/platform';
import { materialImages, materials, type MaterialImageRow } from '../../db/schema/index.js';
import { decodeImage, imageFeatures } from './image-features.js';
import { readImageFile, removeImageFile, saveImageFile } from './image-files.js';
import type { MaterialImageView } from './schemas.js';

/** Photos per material: enough for every side of a part, few enough to keep the search index lean. */
export const MAX_IMAGES_PER_MATERIAL = 20;
const FILE_NAME_MAX = 200;

/**
 * Stores a photo of a material. The file is checked by decoding it (type and integrity), its features are
 * computed, the bytes are written under DATA_DIR, then the row is inserted under the material's row lock
 * (the per-material cap holds under concurrent uploads). A failed insert removes the file again.
 */
export async function uploadMaterialImage(ctx: UseCaseContext, dataDir: string, baseId: number, upload: Upload): Promise<MaterialImageView> {
  const file = requireUploadedFile(upload);
  await ctx.read((q) => materialInScope(ctx, q, baseId));
  const decoded = await decodeImage(file.data);
  const features = await imageFeatures(file.data);
  const storagePath = await saveImageFile(dataDir, baseId, decoded.mime, file.data);
  try {
    const row = await ctx.transaction(async (tx) => {
      const material = await materialInScope(ctx, tx, baseId, true);
      const [{ n } = { n: 0 }] = await tx.select({ n: count() }).from(materialImages).where(eq(materialImages.baseId, baseId));
      if (n >= MAX_IMAGES_PER_MATERIAL) {
        throw validationFailed(`每个物料最多 ${MAX_IMAGES_PER_MATERIAL} 张图片`, { field: 'file' });
      }
      const [created] = await tx
        .insert(materialImages)
        .values({
          baseId,
          companyName: material.companyName,
          fileName: fileNameOf(file.filename, decoded.mime),
          storagePath,
          mime: decoded.mime,
          byteSize: file.data.length,
          width: decoded.width,
          height: decoded.height,
          phash: features.phash,
          colorEmbedding: features.embedding,
          createdBy: ctx.actor.id,
          createdAt: ctx.now,
        })
        .returning();
      return created!;
    });
    return toImageView(row);
  } catch (err) {
    await removeImageFile(dataDir, storagePath);
    throw err;
  }
}

export async function listMaterialImages(ctx: UseCaseContext, baseId: number): Promise<MaterialImageView[]> {
  return ctx.read(async (q) => {
    await materialInScope(ctx, q, baseId);
    const rows = await q.select().from(materialImages).where(eq(materialImages.baseId, baseId)).orderBy(asc(materialImages.id));
    return rows.map(toImageView);
  });
}

export async function readMaterialImage(ctx: UseCaseContext, dataDir: string, baseId: number, imageId: number) {
  const row = await ctx.read(async (q) => {
    await materialInScope(ctx, q, baseId);
    const [image] = await q.select().from(materialImages).where(and(eq(materialImages.id, imageId), eq(materialImages.baseId, baseId)));
    return image;
  });
  if (!row) throw notFound('图片');
  const data = await readImageFile(dataDir, row.storagePath).catch(() => {
    throw notFound('图片文件');
  });
  return { mime: row.mime, data };
}

/** Removes the row in a transaction (audited), then the file once committed. */
export async function deleteMaterialImage(ctx: UseCaseContext, dataDir: string, baseId: number, imageId: number) {
  await ctx.transaction(async (tx) => {
    await materialInScope(ctx, tx, baseId, true);
    const [removed] = await tx
      .delete(materialImages)
      .where(and(eq(materialImages.id, imageId), eq(materialImages.baseId, baseId)))
      .returning({ storagePath: materialImages.storagePath });
    if (!removed) throw notFound('图片');
    ctx.afterCommit(() => removeImageFile(dataDir, removed.storagePath));
  });
  return { id: imageId, deleted: true as const };
}

/** Another company's material is as unknown as a missing one (404). `lock` holds its row to the end of the transaction. */
async function materialInScope(ctx: UseCaseContext, q: Queryable, baseId: number, lock = false) {
  const query = q
    .select({ id: materials.id, companyName: materials.companyName })
    .from(materials)
    .where(and(eq(materials.id, baseId), companyCondition(ctx.scope(), materials.companyName)));
  const [row] = lock ? await query.for('update') : await query;
  if (!row) throw notFound('物料');
  return row;
}

function fileNameOf(uploaded: string, mime: string): string {
  const name = uploaded.trim().slice(0, FILE_NAME_MAX);
  return name || `image.${mime.split('/')[1]}`;
}

/**
 * A material moved to another company takes its photos along, in the move's transaction: the image search
 * scopes photos by their own company column, so left behind they would still be found by the old company.
 */
export async function moveMaterialImages(tx: Tx, baseId: number, companyName: string): Promise<void> {
  await tx.update(materialImages).set({ companyName }).where(eq(materialImages.baseId, baseId));
}

export function toImageView(row: MaterialImageRow): MaterialImageView {
  return {
    id: row.id,
    base_id: row.baseId,
    file_name: row.fileName,
    mime: row.mime,
    byte_size: row.byteSize,
    width: row.width,
    height: row.height,
    url: `${API_PREFIX}/inbound/base/${row.baseId}/images/${row.id}`,
    created_at: row.createdAt.toISOString(),
  };
}
