import { API_PREFIX, ErrorBody, errorResponses, IdParams, PageOf, sendXlsx, XlsxDownload } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { inBothBorrowGroups } from '../borrow/borrow-paths.js';
import { inBothStockGroups } from '../stock/stock-paths.js';
import { executeScrap } from './execute-service.js';
import { submitProductionScrap } from './production-scrap-service.js';
import { exportScrapRecords } from './records-export.js';
import { listScrapRecords } from './records-service.js';
import { registerRemovedScrapEndpoints } from './removed-endpoints.js';
import { BORROW_SCRAP, DEFECTIVE_SCRAP, SCRAP_APPLY, SCRAP_EXECUTE, SCRAP_LIST, sourcePermissions } from './request-access.js';
import { approveScrapRequest, rejectScrapRequest, withdrawScrapRequest } from './request-lifecycle-service.js';
import { getScrapRequest, listScrapRequests } from './request-read-service.js';
import { scanForScrap } from './scan-service.js';
import {
  BorrowScrapBody,
  ExecuteScrapBody,
  LedgerScrapBody,
  ProductionScrapBody,
  ProductionScrapResult,
  RejectBody,
  ScrapRecordsQuery,
  ScrapRecordView,
  ScrapRequestListQuery,
  ScrapRequestView,
  ScrapScanQuery,
  ScrapScanView,
  SubmitScrapBody,
} from './schemas.js';
import { submitBorrowScrap } from './submit-borrow-service.js';
import { submitLedgerScrap } from './submit-ledger-service.js';
import { submitScrapRequest } from './submit-stock-service.js';

/** An optional reason or optional scans, and so an optional body. */
const bodyMayBeAbsent = async (request: { body: unknown }) => {
  request.body ??= {};
};

/**
 * Scrap (spec 2.8, 3.4, 3.7, 3.8, 4.2–4.4; contract §3, §4, §8): one path for every unit that leaves
 * the books as waste — application (stock rows, borrow lines, the defective ledger, production),
 * approval by the request's allowed approvers, execution — plus the records, their export, the scan
 * lookup and the removed direct endpoints (410).
 */
export function registerScrapRoutes(app: InventoryFastify, deps: InventoryDeps) {
  registerSubmissionRoutes(app, deps);
  registerRequestRoutes(app, deps);
  registerRecordRoutes(app, deps);
  registerRemovedScrapEndpoints(app);
}

function registerSubmissionRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['scrap'];
  const created = { 201: ScrapRequestView, ...errorResponses };

  app.post(`${API_PREFIX}/scrap/request`, {
    config: { permission: SCRAP_APPLY, bodyPermissions: sourcePermissions, idempotent: true },
    schema: {
      tags,
      summary: '提交报废申请（库存行：扫码模式，提交时预留；借用明细与不良品台账：自动模式）',
      description:
        '一个申请只有一种模式，由来源决定：库存行为 scan，借用明细 (trans_borrow) 与不良品台账 (trans_defective_goods) 为 auto；' +
        '两种来源混合或与 mode 不符时 400 MIXED_SCRAP_MODES。借用明细须整行报废（scrap_qty 等于未归还数量，否则先拆分：400 SPLIT_REQUIRED），' +
        '与 /borrow/scrap-request、/inbound/stock/defective/<id>/scrap-request 的检查相同（含其权限：借用明细另需 op_return:operation，不良品台账另需 defective_scrap），不预留库存。' +
        'allowed_approvers = approver_ids（若传），否则为提交时本公司持有 scrap_execute 的在职用户。',
      body: SubmitScrapBody,
      response: created,
    },
  }, async (request, reply) => reply.code(201).send(await submitScrapRequest(ctxOf(deps, request), request.body)));

  inBothBorrowGroups('/scrap-request', (path) =>
    app.post(path, {
      config: { permission: BORROW_SCRAP, idempotent: true },
      schema: {
        tags: [...tags, 'borrow'],
        summary: '借用物品报废申请（自动模式，按未归还数量；已归还或已报废的借用记录 400，不会跳过）',
        body: BorrowScrapBody,
        response: created,
      },
    }, async (request, reply) => reply.code(201).send(await submitBorrowScrap(ctxOf(deps, request), request.body))),
  );

  inBothStockGroups('/defective/:id/scrap-request', (path) =>
    app.post(path, {
      config: { permission: DEFECTIVE_SCRAP, idempotent: true },
      schema: {
        tags: [...tags, 'defective'],
        summary: '不良品台账报废申请（自动模式；提交时不占用数量，执行时剩余不足则失败）',
        params: IdParams,
        body: LedgerScrapBody,
        response: created,
      },
    }, async (request, reply) => reply.code(201).send(await submitLedgerScrap(ctxOf(deps, request), request.params.id, request.body))),
  );

  app.post(`${API_PREFIX}/internal/scrap/production`, {
    config: { apiKey: () => deps.config.internalApiKey, idempotent: true },
    schema: {
      tags: [...tags, 'internal'],
      summary: '生产报废（内部接口，X-API-Key）：将出库物品按不良品退回，并在同一事务中对暂存数量提交报废申请',
      description: 'track_ref 必填且唯一（重复 409 DUPLICATE）；is_defective 恒为 true、need_reissue 恒为 false，不读取请求体。以 system 身份在出库记录所属公司执行。内部密钥未配置 503。',
      security: [{ apiKey: [] }],
      body: ProductionScrapBody,
      response: { 201: ProductionScrapResult, ...errorResponses, 503: ErrorBody },
    },
  }, async (request, reply) => reply.code(201).send(await submitProductionScrap(deps.database, request.url, request.body)));
}

function registerRequestRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['scrap'];
  const base = `${API_PREFIX}/scrap/request`;
  const requestResponse = { 200: ScrapRequestView, ...errorResponses };

  app.get(base, {
    schema: {
      tags,
      summary: '报废申请列表（scrap_execute 可见本公司全部，其他人可见本人提交的和可由本人审批的）',
      querystring: ScrapRequestListQuery,
      response: { 200: PageOf(ScrapRequestView), ...errorResponses },
    },
  }, (request) => listScrapRequests(ctxOf(deps, request), request.query));

  app.get(`${base}/:id`, {
    schema: { tags, summary: '报废申请详情', params: IdParams, response: requestResponse },
  }, (request) => getScrapRequest(ctxOf(deps, request), request.params.id));

  app.post(`${base}/:id/approve`, {
    schema: {
      tags,
      summary: '审批通过（0 → 1）；仅 allowed_approvers 中的用户，其他人 400 NOT_APPROVER（空列表：无人可审批）',
      params: IdParams,
      response: requestResponse,
    },
  }, (request) => approveScrapRequest(ctxOf(deps, request), request.params.id));

  app.post(`${base}/:id/reject`, {
    schema: {
      tags,
      summary: '驳回（0 → 2，释放预留）；仅 allowed_approvers；请求体可省略',
      params: IdParams,
      body: RejectBody,
      response: requestResponse,
    },
    preValidation: bodyMayBeAbsent,
  }, (request) => rejectScrapRequest(ctxOf(deps, request), request.params.id, request.body?.reason));

  app.post(`${base}/:id/withdraw`, {
    schema: {
      tags,
      summary: '撤回（0 或 1 → 4，释放预留）；仅申请人，或超级管理员/scrap_execute 持有者',
      params: IdParams,
      response: requestResponse,
    },
  }, (request) => withdrawScrapRequest(ctxOf(deps, request), request.params.id));

  app.post(`${base}/:id/execute`, {
    config: { permission: SCRAP_EXECUTE, idempotent: true },
    schema: {
      tags,
      summary: '执行报废（须为已审批）：扫码模式按扫码数量扣减所列库存行；自动模式按审批数量报废借用物品与不良品台账',
      params: IdParams,
      body: ExecuteScrapBody,
      response: requestResponse,
    },
    preValidation: bodyMayBeAbsent,
  }, (request) => executeScrap(ctxOf(deps, request), request.params.id, request.body ?? {}));

  app.get(`${API_PREFIX}/scrap/scan`, {
    config: { permission: [SCRAP_EXECUTE, SCRAP_APPLY, DEFECTIVE_SCRAP] },
    schema: {
      tags,
      summary: '报废扫码：带 request_id 时按申请行选择库存行或不良品台账；否则按 成品、半成品、外购件、不良品台账 的顺序；选中的库存行不在库时 400 NOT_IN_STOCK',
      querystring: ScrapScanQuery,
      response: { 200: ScrapScanView, ...errorResponses },
    },
  }, (request) => scanForScrap(ctxOf(deps, request), request.query));
}

function registerRecordRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['scrap'];

  app.get(`${API_PREFIX}/scrap/records`, {
    config: { permission: SCRAP_LIST },
    schema: {
      tags,
      summary: '报废记录（最新在前）；选 库存报废 同时匹配没有类别的旧记录；金额字段需 scrap_list:loss_amount',
      querystring: ScrapRecordsQuery,
      response: { 200: PageOf(ScrapRecordView), ...errorResponses },
    },
  }, (request) => listScrapRecords(ctxOf(deps, request), request.query));

  app.get(`${API_PREFIX}/scrap/records/export`, {
    config: { permission: SCRAP_LIST },
    schema: {
      tags,
      summary: '导出报废记录 xlsx（筛选同列表，不分页；金额列需 scrap_list:loss_amount；上限 20000 行，截断时写入文件名）',
      querystring: ScrapRecordsQuery,
      response: { 200: XlsxDownload, ...errorResponses },
    },
  }, async (request, reply) => {
    const { fileName, workbook } = await exportScrapRecords(ctxOf(deps, request), request.query);
    return sendXlsx(reply, fileName, workbook);
  });
}
