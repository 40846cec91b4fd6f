import { Type } from 'typebox';
import { API_PREFIX, ErrorBody, errorResponses, IdParams, imageDownload, readUpload } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { searchByImage } from './image-search-service.js';
import { deleteMaterialImage, listMaterialImages, readMaterialImage, uploadMaterialImage } from './material-image-service.js';
import { ImageParams, ImageSearchResult, ImageSearchUpload, ImageUpload, MaterialImageView } from './schemas.js';

const WRITE = 'material_list:operation';
const IMAGES = `${API_PREFIX}/inbound/base/:id/images`;
const uploadErrors = { ...errorResponses, 413: ErrorBody, 415: ErrorBody };

/**
 * Material photos and the image search (issue 13; spec 4.9 POST /common/image-search). Uploads are
 * multipart/form-data (the platform's one multipart registration); reads and the search need a login,
 * uploads and deletes material_list:operation.
 */
export function registerImageSearchRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['image-search'];
  const dataDir = deps.config.dataDir;

  app.post(`${API_PREFIX}/common/image-search`, {
    schema: {
      tags,
      summary: '以图搜物：按照片查找相似物料及其库存（成品的 batch_number 为序列号）',
      multipart: ImageSearchUpload,
      response: { 200: ImageSearchResult, ...uploadErrors },
    },
  }, async (request) => searchByImage(ctxOf(deps, request), await readUpload(request)));

  app.get(IMAGES, {
    schema: { tags, summary: '物料图片列表', params: IdParams, response: { 200: Type.Array(MaterialImageView), ...errorResponses } },
  }, (request) => listMaterialImages(ctxOf(deps, request), request.params.id));

  app.post(IMAGES, {
    config: { permission: WRITE, idempotent: true },
    schema: {
      tags,
      summary: '上传物料图片（JPEG、PNG、WebP，最多 20 MB，按内容识别类型）',
      params: IdParams,
      multipart: ImageUpload,
      response: { 201: MaterialImageView, ...uploadErrors },
    },
  }, async (request, reply) => {
    const ctx = ctxOf(deps, request);
    return reply.code(201).send(await uploadMaterialImage(ctx, dataDir, request.params.id, await readUpload(request)));
  });

  app.get(`${IMAGES}/:image_id`, {
    schema: {
      tags,
      summary: '物料图片内容',
      params: ImageParams,
      response: { 200: imageDownload('image/jpeg', 'image/png', 'image/webp'), ...errorResponses },
    },
  }, async (request, reply) => {
    const image = await readMaterialImage(ctxOf(deps, request), dataDir, request.params.id, request.params.image_id);
    return reply.header('content-type', image.mime).header('cache-control', 'private, max-age=3600').send(image.data);
  });

  app.delete(`${IMAGES}/:image_id`, {
    config: { permission: WRITE, idempotent: true },
    schema: {
      tags,
      summary: '删除物料图片',
      params: ImageParams,
      response: { 200: Type.Object({ id: Type.Integer(), deleted: Type.Literal(true) }), ...errorResponses },
    },
  }, (request) => deleteMaterialImage(ctxOf(deps, request), dataDir, request.params.id, request.params.image_id));
}
