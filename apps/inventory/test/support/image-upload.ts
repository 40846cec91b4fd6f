import type { TestInventory } from '../helpers.js';
import { multipartBody } from './multipart.js';

/** POST /inbound/base/:id/images with the file as a browser sends it. */
export function uploadImage(t: TestInventory, token: string, baseId: number, data: Buffer, file: { filename?: string; contentType?: string } = {}) {
  const { body, headers } = multipartBody({}, { filename: file.filename ?? 'photo.png', contentType: file.contentType ?? 'image/png', data });
  return t.request('POST', `/api/v1/inbound/base/${baseId}/images`, { token, body, headers });
}

export interface SearchHitJson {
  base_id: number;
  name: string;
  spec_model: string;
  score: number;
  image_id: number;
  stock: Array<{ id: number; sku: string; source_table: string; batch_number: string | null; warehouse_location: string; available_quantity: string }>;
}

/** POST /common/image-search with the photo and optional form fields (limit, company). */
export function searchImage(t: TestInventory, token: string, data: Buffer, fields: Record<string, string> = {}) {
  const { body, headers } = multipartBody(fields, { filename: 'query.jpg', contentType: 'image/jpeg', data });
  return t.request('POST', '/api/v1/common/image-search', { token, body, headers });
}
