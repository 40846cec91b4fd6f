import { Type } from 'typebox';
import { API_PREFIX, errorResponses, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { getBom, listBoms, listBuiltSerials, listVersions, readDraft, summarizeBoms } from './bom-read-service.js';
import { discardDraft, dropUnwritableRemark, saveAndPublish, saveDraft } from './bom-write-service.js';
import {
  BomListItem,
  BomListQuery,
  BomSummary,
  BomSummaryQuery,
  BomVersionsQuery,
  BomVersionSummary,
  BomVersionView,
  BuiltSerialsQuery,
  BuiltSerialView,
  DraftDeleted,
  ParentParams,
  ParentQuery,
  SaveBomBody,
  VersionIdParams,
  VersionQuery,
} from './schemas.js';

const WRITE = 'bom_manage:operation';
const BASE = `${API_PREFIX}/bom`;

/**
 * Bills of materials (spec 2.14, 4.9): versions per parent item, one draft at a time, published versions
 * immutable. Reading needs a login; writes need bom_manage:operation, and the BOM-level remark is kept
 * only for holders of bom_manage:remark (dropped before the use case otherwise).
 */
export function registerBomRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['bom'];

  app.get(`${BASE}/summary`, {
    schema: { tags, summary: '按父件分类统计 BOM 数量', querystring: BomSummaryQuery, response: { 200: BomSummary, ...errorResponses } },
  }, (request) => summarizeBoms(ctxOf(deps, request), request.query.company));

  app.get(`${BASE}/list`, {
    schema: {
      tags,
      summary: 'BOM 列表（父件分页，附子件汇总；显示当前发布版本，未发布时显示草稿）',
      querystring: BomListQuery,
      response: { 200: PageOf(BomListItem), ...errorResponses },
    },
  }, (request) => listBoms(ctxOf(deps, request), request.query));

  app.post(`${BASE}/save`, {
    config: { permission: WRITE, idempotent: true },
    schema: {
      tags,
      summary: '发布 BOM（经由草稿；未传的备注与子件沿用草稿）为新版本；已发布版本不可修改',
      body: SaveBomBody,
      response: { 200: BomVersionView, ...errorResponses },
    },
  }, (request) => {
    const ctx = ctxOf(deps, request);
    return saveAndPublish(ctx, request.body.parent_id, dropUnwritableRemark(ctx.actor, request.body));
  });

  app.post(`${BASE}/draft/save`, {
    config: { permission: WRITE, idempotent: true },
    schema: { tags, summary: '保存 BOM 草稿（每个父件一个草稿，子件整表覆盖）', body: SaveBomBody, response: { 200: BomVersionView, ...errorResponses } },
  }, (request) => {
    const ctx = ctxOf(deps, request);
    return saveDraft(ctx, request.body.parent_id, dropUnwritableRemark(ctx.actor, request.body));
  });

  app.get(`${BASE}/draft`, {
    schema: {
      tags,
      summary: '读取父件的 BOM 草稿（没有时为 null）',
      querystring: ParentQuery,
      response: { 200: Type.Union([BomVersionView, Type.Null()]), ...errorResponses },
    },
  }, (request) => readDraft(ctxOf(deps, request), request.query.parent_id));

  app.delete(`${BASE}/draft`, {
    config: { permission: WRITE, idempotent: true },
    schema: { tags, summary: '删除父件的 BOM 草稿', querystring: ParentQuery, response: { 200: DraftDeleted, ...errorResponses } },
  }, (request) => discardDraft(ctxOf(deps, request), request.query.parent_id));

  app.get(`${BASE}/versions/:id/serials`, {
    schema: {
      tags,
      summary: '按此 BOM 版本生产并入库的成品（序列号）',
      params: VersionIdParams,
      querystring: BuiltSerialsQuery,
      response: { 200: PageOf(BuiltSerialView), ...errorResponses },
    },
  }, (request) => listBuiltSerials(ctxOf(deps, request), request.params.id, request.query));

  app.get(`${BASE}/:parent_id`, {
    schema: {
      tags,
      summary: '父件的 BOM：version 指定版本号，不传为当前发布版本',
      params: ParentParams,
      querystring: VersionQuery,
      response: { 200: BomVersionView, ...errorResponses },
    },
  }, (request) => getBom(ctxOf(deps, request), request.params.parent_id, request.query.version));

  app.get(`${BASE}/:parent_id/versions`, {
    schema: {
      tags,
      summary: '父件的全部 BOM 版本（新的在前）',
      params: ParentParams,
      querystring: BomVersionsQuery,
      response: { 200: PageOf(BomVersionSummary), ...errorResponses },
    },
  }, (request) => listVersions(ctxOf(deps, request), request.params.parent_id, request.query));
}
