import { Type } from 'typebox';
import { API_PREFIX, errorResponses, IdParams, PageOf, sendXlsx, XlsxDownload } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { summarizeCategories } from './category-summary.js';
import { dropUnwritableFields, MATERIAL_UPDATE_PERMISSIONS } from './field-permissions.js';
import { exportMaterials, MATERIAL_EXPORT_FILE_NAME } from './material-export.js';
import { createMaterial, deleteMaterial, getMaterial, listMaterials, updateMaterial } from './material-service.js';
import {
  CategorySummary,
  CompanyQuery,
  CreateMaterialBody,
  MaterialExportQuery,
  MaterialListQuery,
  MaterialView,
  SpecSuggestionQuery,
  UpdateMaterialBody,
} from './schemas.js';
import { specSuggestionCache } from './spec-suggestion-cache.js';
import { suggestSpecModels } from './spec-suggestions.js';

const WRITE = 'material_list:operation';
const BASE = `${API_PREFIX}/inbound/base`;

/**
 * Material master data (spec 2.3, 4.9; contract §4). Reading needs only a login; create and delete need
 * material_list:operation, an update any code that writes some field; each body field is kept only when
 * the caller may write it (field-permissions.ts) before the use case runs.
 */
export function registerMaterialRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['materials'];
  // The cache is the process's; an app built after this one (another test file) must not see its entries.
  app.addHook('onClose', async () => specSuggestionCache.clear());

  app.get(BASE, {
    schema: { tags, summary: '物料列表（字段按读取权限过滤）', querystring: MaterialListQuery, response: { 200: PageOf(MaterialView), ...errorResponses } },
  }, (request) => listMaterials(ctxOf(deps, request), request.query));

  app.post(BASE, {
    config: { permission: WRITE, idempotent: true },
    schema: { tags, summary: '新建物料（无写权限的字段被丢弃）', body: CreateMaterialBody, response: { 201: MaterialView, ...errorResponses } },
  }, async (request, reply) => {
    const ctx = ctxOf(deps, request);
    return reply.code(201).send(await createMaterial(ctx, dropUnwritableFields(ctx.actor, request.body)));
  });

  app.get(`${BASE}/ext-summary`, {
    schema: { tags, summary: '按分类统计物料数量', querystring: CompanyQuery, response: { 200: CategorySummary, ...errorResponses } },
  }, (request) => summarizeCategories(ctxOf(deps, request), request.query.company));

  app.get(`${BASE}/spec-suggestions`, {
    schema: {
      tags,
      summary: '规格型号联想（最多扫描 10000 行，缓存 1 小时）',
      querystring: SpecSuggestionQuery,
      response: { 200: Type.Array(Type.String()), ...errorResponses },
    },
  }, (request) => suggestSpecModels(ctxOf(deps, request), request.query));

  app.get(`${BASE}/export`, {
    schema: {
      tags,
      summary: '导出物料 xlsx（筛选同列表，字段按读取权限过滤）',
      querystring: MaterialExportQuery,
      response: { 200: XlsxDownload, ...errorResponses },
    },
  }, async (request, reply) => {
    const workbook = await exportMaterials(ctxOf(deps, request), request.query);
    return sendXlsx(reply, MATERIAL_EXPORT_FILE_NAME, workbook);
  });

  app.get(`${BASE}/:id`, {
    schema: { tags, summary: '物料详情', params: IdParams, response: { 200: MaterialView, ...errorResponses } },
  }, (request) => getMaterial(ctxOf(deps, request), request.params.id));

  app.put(`${BASE}/:id`, {
    config: { permission: MATERIAL_UPDATE_PERMISSIONS, idempotent: true },
    schema: { tags, summary: '修改物料（部分更新；无写权限的字段被丢弃）', params: IdParams, body: UpdateMaterialBody, response: { 200: MaterialView, ...errorResponses } },
  }, (request) => {
    const ctx = ctxOf(deps, request);
    return updateMaterial(ctx, request.params.id, dropUnwritableFields(ctx.actor, request.body));
  });

  app.delete(`${BASE}/:id`, {
    config: { permission: WRITE, idempotent: true },
    schema: { tags, summary: '删除物料，答复删除前的物料（仍有库存记录或 BOM 引用时拒绝）', params: IdParams, response: { 200: MaterialView, ...errorResponses } },
  }, (request) => deleteMaterial(ctxOf(deps, request), request.params.id));
}
