import { Type } from 'typebox';
import { API_PREFIX, errorResponses, IdParams, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { StockRowView } from '../stock/schemas.js';
import { executeOutbound } from './execute-service.js';
import { listOutbounds } from './outbound-list-service.js';
import {
  approveOutboundRequest,
  closeOutboundRequest,
  rejectOutboundRequest,
  withdrawOutboundRequest,
} from './request-lifecycle-service.js';
import { getOutboundRequest, listMyOutboundRequests, listOutboundRequests } from './request-read-service.js';
import { submitOutboundRequest } from './request-submit-service.js';
import {
  AlternativesQuery,
  BomMatchBody,
  ExecuteBody,
  ExecutionResult,
  OutboundGroupView,
  OutboundListQuery,
  OutboundRequestView,
  RejectBody,
  RequestListQuery,
  ScannedRowView,
  ScanQuery,
  SubmitRequestBody,
} from './schemas.js';
import { listAlternatives, matchBomStock, scanForOutbound } from './stock-selection-service.js';

/** Permission codes of the outbound flow (contract §3). */
const SELECT = 'outbound_selection';
const APPROVE = 'outbound_approval';
const EXECUTE = 'outbound_create:operation';

export function registerOutboundRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['outbound'];
  const base = `${API_PREFIX}/outbound`;
  const requestResponse = { 200: OutboundRequestView, ...errorResponses };

  app.post(`${base}/request`, {
    config: { permission: SELECT, idempotent: true, actorConfirmedByHandler: true },
    schema: {
      tags,
      summary: '提交出库申请（按物料合并、最大可用优先分配并严格预留；库存不足 400 STOCK_SHORTAGE）',
      body: SubmitRequestBody,
      response: { 201: OutboundRequestView, ...errorResponses },
    },
  }, async (request, reply) => reply.code(201).send(await submitOutboundRequest(ctxOf(deps, request), request.body)));

  app.get(`${base}/request`, {
    schema: {
      tags,
      summary: '出库申请列表（outbound_approval 可见本公司全部，其他人仅本人）',
      querystring: RequestListQuery,
      response: { 200: PageOf(OutboundRequestView), ...errorResponses },
    },
  }, (request) => listOutboundRequests(ctxOf(deps, request), request.query));

  app.get(`${base}/my-requests`, {
    schema: {
      tags,
      summary: '我的出库申请（申请人恒为当前用户）',
      querystring: RequestListQuery,
      response: { 200: PageOf(OutboundRequestView), ...errorResponses },
    },
  }, (request) => listMyOutboundRequests(ctxOf(deps, request), request.query));

  app.get(`${base}/request/:id`, {
    schema: { tags, summary: '出库申请详情', params: IdParams, response: requestResponse },
  }, (request) => getOutboundRequest(ctxOf(deps, request), request.params.id));

  app.post(`${base}/request/:id/approve`, {
    config: { permission: APPROVE },
    schema: { tags, summary: '审批通过（0 → 1）', params: IdParams, response: requestResponse },
  }, (request) => approveOutboundRequest(ctxOf(deps, request), request.params.id));

  app.post(`${base}/request/:id/reject`, {
    config: { permission: APPROVE },
    schema: { tags, summary: '驳回（0 → 2，释放预留）；请求体可省略', params: IdParams, body: RejectBody, response: requestResponse },
    // The reason is optional, and so is the whole body.
    preValidation: async (request) => {
      request.body ??= {};
    },
  }, (request) => rejectOutboundRequest(ctxOf(deps, request), request.params.id, request.body?.reason));

  app.post(`${base}/request/:id/withdraw`, {
    schema: {
      tags,
      summary: '撤回（0 或 1 → 4 withdrawn，释放预留）；仅申请人，或超级管理员/审批人',
      params: IdParams,
      response: requestResponse,
    },
  }, (request) => withdrawOutboundRequest(ctxOf(deps, request), request.params.id));

  app.post(`${base}/request/:id/close`, {
    config: { permission: [EXECUTE, APPROVE] },
    schema: { tags, summary: '关闭（仅 1 → 4 closed，释放预留）', params: IdParams, response: requestResponse },
  }, (request) => closeOutboundRequest(ctxOf(deps, request), request.params.id));

  app.get(`${base}/scan`, {
    config: { permission: EXECUTE, actorConfirmedByHandler: true },
    schema: {
      tags,
      summary: '出库扫码：可用数量 = 实时可用 + 本申请在该行的预留（仅本申请状态 0/1 时加回）',
      querystring: ScanQuery,
      response: { 200: ScannedRowView, ...errorResponses },
    },
  }, (request) => scanForOutbound(ctxOf(deps, request), request.query));

  app.get(`${base}/alternatives`, {
    config: { permission: [EXECUTE, SELECT] },
    schema: {
      tags,
      summary: '同物料可替代的在库行（同扫码的加回规则，仅可用 > 0）',
      querystring: AlternativesQuery,
      response: { 200: Type.Array(ScannedRowView), ...errorResponses },
    },
  }, (request) => listAlternatives(ctxOf(deps, request), request.query));

  app.post(`${base}/bom-match-stock`, {
    config: { permission: [SELECT, EXECUTE] },
    schema: {
      tags,
      summary: '一次查询给定物料的全部有可用库存的在库行（三类库存，不含价格字段）',
      body: BomMatchBody,
      response: { 200: Type.Array(StockRowView), ...errorResponses },
    },
  }, (request) => matchBomStock(ctxOf(deps, request), request.body));

  app.post(base, {
    config: { permission: EXECUTE, idempotent: true },
    schema: {
      tags,
      summary: '按扫码执行出库（申请须为已审批；先释放本申请预留，再扣减实扫数量）',
      body: ExecuteBody,
      response: { 201: ExecutionResult, ...errorResponses },
    },
  }, async (request, reply) => reply.code(201).send(await executeOutbound(ctxOf(deps, request), request.body)));

  app.get(base, {
    config: { permission: [SELECT, EXECUTE] },
    schema: {
      tags,
      summary: '出库记录（按出库单号分组，含明细行）',
      querystring: OutboundListQuery,
      response: { 200: PageOf(OutboundGroupView), ...errorResponses },
    },
  }, (request) => listOutbounds(ctxOf(deps, request), request.query));
}
