import { API_PREFIX, errorResponses, ErrorBody, IdParams, PageOf } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../app-types.js';
import { createMaterial, listMaterials } from './material-service.js';
import { getProduct, listProducts, scanProduct } from './product-read-service.js';
import { createProduct, updateProduct } from './product-service.js';
import {
  CreateMaterialBody,
  CreateProductBody,
  MaterialListQuery,
  MaterialView,
  ProductListQuery,
  ProductView,
  SerialParams,
  UpdateProductBody,
} from './schemas.js';
import { randomSerialNumber } from './serial-number.js';

/** Tracking answers validation failures with 422 (contract §2). */
const responses = { ...errorResponses, 422: ErrorBody };

/**
 * Products (contract §6, §8). Every logged-in user may read; writes need the product's lifecycle phase
 * in the caller's data scope (403 otherwise). The list is scope-filtered; lookups by id and by serial
 * (scan) are not: users may view across scope, not operate.
 */
export function registerProductRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['products'];
  const drawSerial = () => randomSerialNumber(deps.config.serialPrefix);

  app.get(`${API_PREFIX}/products`, {
    schema: { tags, summary: '产品列表（按数据范围过滤后分页）', querystring: ProductListQuery, response: { 200: PageOf(ProductView), ...responses } },
  }, (request) => listProducts(ctxOf(deps, request), request.query));

  app.post(`${API_PREFIX}/products`, {
    config: { idempotent: true },
    schema: { tags, summary: '新建产品（生成序列号）', body: CreateProductBody, response: { 201: ProductView, ...responses } },
  }, async (request, reply) => reply.code(201).send(await createProduct(ctxOf(deps, request), request.body, drawSerial)));

  app.get(`${API_PREFIX}/products/scan/:sn`, {
    schema: { tags, summary: '按序列号查询产品（不按数据范围过滤，只读）', params: SerialParams, response: { 200: ProductView, ...responses } },
  }, (request) => scanProduct(ctxOf(deps, request), request.params.sn));

  app.get(`${API_PREFIX}/products/:id`, {
    schema: { tags, summary: '产品详情（只读查询，不按数据范围过滤）', params: IdParams, response: { 200: ProductView, ...responses } },
  }, (request) => getProduct(ctxOf(deps, request), request.params.id));

  app.patch(`${API_PREFIX}/products/:id`, {
    config: { idempotent: true },
    schema: {
      tags,
      summary: '修改产品（数据范围外 403；状态按允许的流转）',
      params: IdParams,
      body: UpdateProductBody,
      response: { 200: ProductView, ...responses },
    },
  }, (request) => updateProduct(ctxOf(deps, request), request.params.id, request.body));

  app.get(`${API_PREFIX}/materials`, {
    schema: {
      tags: ['materials'],
      summary: `产品型号列表（仅分类以 MATERIAL_CATEGORY_PREFIX/ 开头的物料）`,
      querystring: MaterialListQuery,
      response: { 200: PageOf(MaterialView), ...responses },
    },
  }, (request) => listMaterials(ctxOf(deps, request), deps.config.materialCategoryPrefix, request.query));

  app.post(`${API_PREFIX}/materials`, {
    config: { idempotent: true },
    schema: {
      tags: ['materials'],
      summary: '手工新建产品型号（超级管理员或主管）',
      body: CreateMaterialBody,
      response: { 201: MaterialView, ...responses },
    },
  }, async (request, reply) => reply.code(201).send(await createMaterial(ctxOf(deps, request), request.body)));
}
