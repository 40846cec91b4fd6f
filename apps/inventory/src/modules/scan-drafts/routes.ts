import { Type } from 'typebox';
import { API_PREFIX, errorResponses } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { deleteDraft, draftOverview, getDraft, saveDraft } from './draft-service.js';
import { DeleteResult, draftKeyOf, DraftKeyQuery, DraftView, OverviewItem, SaveDraftBody, SaveResult } from './schemas.js';

/** Scan drafts (spec 4.7): any logged-in user, always on their own drafts. */
export function registerScanDraftRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['scan-draft'];
  const base = `${API_PREFIX}/scan-draft`;

  app.get(base, {
    schema: {
      tags,
      summary: '读取本人的扫描草稿（没有则为 null）',
      querystring: DraftKeyQuery,
      response: { 200: Type.Union([DraftView, Type.Null()]), ...errorResponses },
    },
  }, (request) => getDraft(ctxOf(deps, request), request.query));

  app.post(base, {
    schema: {
      tags,
      summary: '保存扫描草稿（整单覆盖；items 为空数组时删除草稿）',
      body: SaveDraftBody,
      response: { 200: SaveResult, ...errorResponses },
    },
  }, (request) => saveDraft(ctxOf(deps, request), request.body));

  app.delete(base, {
    schema: {
      tags,
      summary: '删除扫描草稿（提交成功后调用）；biz_type 与 request_id 放在查询参数或请求体中',
      querystring: Type.Partial(DraftKeyQuery),
      body: Type.Unknown({ description: '可选: { biz_type, request_id }' }),
      response: { 200: DeleteResult, ...errorResponses },
    },
  }, (request) => deleteDraft(ctxOf(deps, request), draftKeyOf(request.query, request.body)));

  app.get(`${base}/overview`, {
    schema: {
      tags,
      summary: '本人各申请的扫描进度（最新在前）',
      response: { 200: Type.Array(OverviewItem), ...errorResponses },
    },
  }, (request) => draftOverview(ctxOf(deps, request)));
}
