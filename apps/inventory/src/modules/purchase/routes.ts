import { Type } from 'typebox';
import { API_PREFIX, errorResponses, IdParams, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { autoFill, listApprovers, searchMaterials } from './assist-service.js';
import { decidePurchase, decidePurchaseBatch } from './decision-service.js';
import { listPendingPool } from './pending-pool-service.js';
import { getPurchase, getPurchaseBatch, listApprovedUnstocked, listPurchases, nextBatchSeq } from './read-service.js';
import {
  ApprovedUnstockedQuery,
  ApproverView,
  AutoFillView,
  BatchDecisionBody,
  BatchDecisionResult,
  BatchQuery,
  CompanyOnlyQuery,
  DecisionBody,
  MaterialCandidate,
  MaterialLookupQuery,
  NextBatchSeq,
  PendingPoolQuery,
  PurchaseBatchView,
  PurchaseListQuery,
  PurchaseRequestView,
  SearchMaterialQuery,
  SubmitPurchaseBody,
  SupplyItemView,
} from './schemas.js';
import { submitPurchase } from './submit-service.js';

/** Permission codes of purchasing (spec 4.5, §5; contract §3). */
const LIST = 'inbound_buy';
const OPERATE = 'inbound_purchase:operation';
const POOL = 'inbound_purchase:pending_pool';

/**
 * Purchase requests (spec 2.9, 3.6, 4.5): submission in batches, listing, approval, the pending pool
 * and the helpers of the submission form. Completion by stock-in lives in the stock-in transaction
 * (stock-in-completion.ts).
 */
export function registerPurchaseRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['purchase'];
  const base = `${API_PREFIX}/purchase`;

  app.post(base, {
    config: { idempotent: true },
    schema: {
      tags,
      summary: '提交采购申请（一次一项或多项，共享批次号；按 name + spec_model 自动匹配物料）',
      description: '单号 PUR-<yyyymmdd>-<hhmm>-<批次序号>-<项序号>（北京时间）。提交后异步发邮件给审批人。',
      body: SubmitPurchaseBody,
      response: { 201: PurchaseBatchView, ...errorResponses },
    },
  }, async (request, reply) => reply.code(201).send(await submitPurchase(ctxOf(deps, request), request.body)));

  app.get(base, {
    config: { permission: LIST },
    schema: {
      tags,
      summary: '采购申请列表（本公司；价格字段按权限）',
      querystring: PurchaseListQuery,
      response: { 200: PageOf(PurchaseRequestView), ...errorResponses },
    },
  }, (request) => listPurchases(ctxOf(deps, request), request.query));

  app.get(`${base}/next-batch-seq`, {
    schema: { tags, summary: '今天下一次提交的批次序号（仅供参考）', response: { 200: NextBatchSeq, ...errorResponses } },
  }, (request) => nextBatchSeq(ctxOf(deps, request)));

  app.get(`${base}/batch`, {
    schema: {
      tags,
      summary: '一个批次的全部采购申请（申请人本人或 inbound_purchase）',
      querystring: BatchQuery,
      response: { 200: PurchaseBatchView, ...errorResponses },
    },
  }, (request) => getPurchaseBatch(ctxOf(deps, request), request.query.batch_key));

  app.get(`${base}/approvers`, {
    schema: {
      tags,
      summary: '本公司的采购审批人（持有 inbound_purchase:operation 的在职用户）',
      querystring: CompanyOnlyQuery,
      response: { 200: Type.Array(ApproverView), ...errorResponses },
    },
  }, (request) => listApprovers(ctxOf(deps, request), request.query.company));

  app.get(`${base}/auto-fill`, {
    schema: {
      tags,
      summary: '采购项自动填充：物料、库存与建议数量、最近供应商与最近一次采购',
      querystring: MaterialLookupQuery,
      response: { 200: AutoFillView, ...errorResponses },
    },
  }, (request) => autoFill(ctxOf(deps, request), request.query));

  app.get(`${base}/search-material`, {
    schema: {
      tags,
      summary: '按名称或规格搜索物料（供采购申请选择）',
      querystring: SearchMaterialQuery,
      response: { 200: Type.Array(MaterialCandidate), ...errorResponses },
    },
  }, (request) => searchMaterials(ctxOf(deps, request), request.query));

  app.get(`${base}/pending-pool`, {
    config: { permission: POOL },
    schema: {
      tags,
      summary: '待采购池：有效库存（实物 + 在途）<= 红色或黄色阈值的物料及建议采购数量',
      querystring: PendingPoolQuery,
      response: { 200: PageOf(SupplyItemView), ...errorResponses },
    },
  }, (request) => listPendingPool(ctxOf(deps, request), request.query));

  app.get(`${base}/approved-unstocked`, {
    config: { permission: LIST },
    schema: {
      tags,
      summary: '已审批、尚未入库的采购申请（入库时以 request_id 关联即完成）',
      querystring: ApprovedUnstockedQuery,
      response: { 200: PageOf(PurchaseRequestView), ...errorResponses },
    },
  }, (request) => listApprovedUnstocked(ctxOf(deps, request), request.query));

  app.post(`${base}/batch-approve`, {
    config: { permission: OPERATE, idempotent: true },
    schema: {
      tags,
      summary: '批量审批（按 ids 或 batch_key；approve、reject、close），返回成功与失败列表',
      body: BatchDecisionBody,
      response: { 200: BatchDecisionResult, ...errorResponses },
    },
  }, (request) => decidePurchaseBatch(ctxOf(deps, request), request.body));

  app.get(`${base}/:id`, {
    schema: {
      tags,
      summary: '采购申请详情（本人，或 inbound_purchase 可看本公司全部）',
      params: IdParams,
      response: { 200: PurchaseRequestView, ...errorResponses },
    },
  }, (request) => getPurchase(ctxOf(deps, request), request.params.id));

  app.patch(`${base}/:id/approve`, {
    config: { permission: OPERATE, idempotent: true },
    schema: {
      tags,
      summary: '审批：approve 0→1，reject 0→2，close 1→4；异步邮件通知申请人',
      params: IdParams,
      body: DecisionBody,
      response: { 200: PurchaseRequestView, ...errorResponses },
    },
  }, (request) => decidePurchase(ctxOf(deps, request), request.params.id, request.body));
}
