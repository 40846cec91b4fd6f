import { Type, type Static } from 'typebox';
import { IdParams } from '@wms/platform';

export const DEFAULT_HITS = 10;
export const MAX_HITS = 50;

export const ImageParams = Type.Object({ id: IdParams.properties.id, image_id: Type.Integer({ minimum: 1, maximum: 2147483647 }) });

export const ImageUpload = Type.Object({
  file: Type.String({ format: 'binary', description: '图片文件：JPEG、PNG 或 WebP，最多 20 MB（按文件内容识别类型）' }),
});

export const MaterialImageView = Type.Object({
  id: Type.Integer(),
  base_id: Type.Integer(),
  file_name: Type.String(),
  mime: Type.String(),
  byte_size: Type.Integer(),
  width: Type.Integer(),
  height: Type.Integer(),
  /** Path of the image bytes (GET). */
  url: Type.String(),
  created_at: Type.String({ format: 'date-time' }),
});
export type MaterialImageView = Static<typeof MaterialImageView>;

export const ImageSearchUpload = Type.Object({
  file: Type.String({ format: 'binary', description: '要查找的照片：JPEG、PNG 或 WebP，最多 20 MB' }),
  limit: Type.Optional(Type.String({ description: `返回物料数，默认 ${DEFAULT_HITS}，最多 ${MAX_HITS}` })),
  company: Type.Optional(Type.String({ description: '公司筛选（仅跨域用户生效）' })),
});

export const StockHit = Type.Object({
  id: Type.Integer(),
  sku: Type.String(),
  source_table: Type.String(),
  /** The batch number; for a finished product (stock_product) its serial number (spec 4.9). */
  batch_number: Type.Union([Type.String(), Type.Null()]),
  warehouse_location: Type.String(),
  available_quantity: Type.Number(),
  status: Type.String(),
});

export const MaterialHit = Type.Object({
  base_id: Type.Integer(),
  name: Type.String(),
  spec_model: Type.String(),
  category: Type.String(),
  company_name: Type.String(),
  /** Similarity 0–1 of the best matching image of the material (1 = the same picture). */
  score: Type.Number(),
  image_id: Type.Integer(),
  stock: Type.Array(StockHit),
});
export type MaterialHit = Static<typeof MaterialHit>;

export const ImageSearchResult = Type.Object({ items: Type.Array(MaterialHit) });
