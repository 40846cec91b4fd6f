import { Type } from 'typebox';
import { errorResponses, IdParams, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { ActiveUser } from '../identity/schemas.js';
import { listActiveUsers } from '../identity/user-service.js';
import { StockListQuery, StockRowView } from '../stock/schemas.js';
import { listStockRows } from '../stock/stock-read-service.js';
import { inBothBorrowGroups } from './borrow-paths.js';
import { dispatchBorrow } from './dispatch-service.js';
import { lineHistory, slipHistory } from './history-service.js';
import { listBorrowRecords } from './records-service.js';
import { BORROW_APPLY, BORROW_APPROVAL, BORROW_DISPATCH, BORROW_RETURN } from './request-access.js';
import { approveBorrowRequest, closeBorrowRequest, rejectBorrowRequest, withdrawBorrowRequest } from './request-lifecycle-service.js';
import { getBorrowRequest, listBorrowRequests } from './request-read-service.js';
import { submitBorrowRequest } from './request-submit-service.js';
import { returnBorrowLine } from './return-service.js';
import {
  BorrowLineView,
  BorrowRecordsQuery,
  BorrowRequestListQuery,
  BorrowRequestView,
  BorrowSlipView,
  DispatchBody,
  DispatchResult,
  HistoryEventView,
  PendingCountView,
  ReasonBody,
  RejectAckBody,
  RejectAckResult,
  ReturnBody,
  SlipParams,
  SplitBody,
  SplitResult,
  SubmitBorrowBody,
  TransferBody,
  TransferView,
} from './schemas.js';
import { splitBorrowLine } from './split-service.js';
import { acceptTransfer, acknowledgeRejections, rejectTransfer } from './transfer-decision-service.js';
import { pendingTransferCount } from './transfer-read-service.js';
import { initiateTransfer } from './transfer-service.js';

/** An optional reason, and so an optional body. */
const bodyMayBeAbsent = async (request: { body: unknown }) => {
  request.body ??= {};
};

/**
 * Borrowing (spec 2.6, 3.3–3.5, 4.3; contract §3–§4, §8). Every path is served as /borrow/... and as
 * /transactions/borrow/... by the same handler. POST /borrow/scrap-request belongs to the scrap module.
 */
export function registerBorrowRoutes(app: InventoryFastify, deps: InventoryDeps) {
  registerRequestRoutes(app, deps);
  registerLineRoutes(app, deps);
  registerTransferRoutes(app, deps);
}

function registerRequestRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['borrow'];
  const requestResponse = { 200: BorrowRequestView, ...errorResponses };

  inBothBorrowGroups('/request', (path) => {
    app.post(path, {
      config: { permission: BORROW_APPLY, idempotent: true },
      schema: {
        tags,
        summary: '提交借用申请（按物料合并、最大可用优先分配并严格预留；库存不足 400 STOCK_SHORTAGE）',
        body: SubmitBorrowBody,
        response: { 201: BorrowRequestView, ...errorResponses },
      },
    }, async (request, reply) => reply.code(201).send(await submitBorrowRequest(ctxOf(deps, request), request.body)));

    app.get(path, {
      schema: {
        tags,
        summary: '借用申请列表（op_borrow_approval / op_borrow_dispatch 可见本公司全部，其他人仅本人）',
        querystring: BorrowRequestListQuery,
        response: { 200: PageOf(BorrowRequestView), ...errorResponses },
      },
    }, (request) => listBorrowRequests(ctxOf(deps, request), request.query));
  });

  inBothBorrowGroups('/request/:id', (path) =>
    app.get(path, {
      schema: { tags, summary: '借用申请详情', params: IdParams, response: requestResponse },
    }, (request) => getBorrowRequest(ctxOf(deps, request), request.params.id)),
  );

  inBothBorrowGroups('/request/:id/approve', (path) =>
    app.post(path, {
      config: { permission: BORROW_APPROVAL },
      schema: { tags, summary: '审批通过（0 → 1）', params: IdParams, response: requestResponse },
    }, (request) => approveBorrowRequest(ctxOf(deps, request), request.params.id)),
  );

  inBothBorrowGroups('/request/:id/reject', (path) =>
    app.post(path, {
      config: { permission: BORROW_APPROVAL },
      schema: { tags, summary: '驳回（0 → 2，释放预留）；请求体可省略', params: IdParams, body: ReasonBody, response: requestResponse },
      preValidation: bodyMayBeAbsent,
    }, (request) => rejectBorrowRequest(ctxOf(deps, request), request.params.id, request.body?.reason)),
  );

  inBothBorrowGroups('/request/:id/close', (path) =>
    app.post(path, {
      config: { permission: BORROW_APPROVAL },
      schema: { tags, summary: '关闭（仅 1 → 4 closed，释放预留）', params: IdParams, response: requestResponse },
    }, (request) => closeBorrowRequest(ctxOf(deps, request), request.params.id)),
  );

  inBothBorrowGroups('/request/:id/withdraw', (path) =>
    app.post(path, {
      schema: {
        tags,
        summary: '撤回（0 或 1 → 4 withdrawn，释放预留）；仅申请人，或超级管理员/借用审批人',
        params: IdParams,
        response: requestResponse,
      },
    }, (request) => withdrawBorrowRequest(ctxOf(deps, request), request.params.id)),
  );

  inBothBorrowGroups('/stock-list', (path) =>
    app.get(path, {
      config: { permission: BORROW_APPLY },
      schema: {
        tags,
        summary: '可借用的库存行（同库存列表的查询与字段规则）',
        querystring: StockListQuery,
        response: { 200: PageOf(StockRowView), ...errorResponses },
      },
    }, (request) => listStockRows(ctxOf(deps, request), request.query)),
  );

  inBothBorrowGroups('/users', (path) =>
    app.get(path, {
      schema: {
        tags,
        summary: '本公司在职用户（id 与姓名；同 /common/active-users）',
        querystring: Type.Object({ company: Type.Optional(Type.String({ maxLength: 64 })) }),
        response: { 200: Type.Array(ActiveUser), ...errorResponses },
      },
    }, (request) => listActiveUsers(ctxOf(deps, request), request.query.company)),
  );
}

function registerLineRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['borrow'];

  inBothBorrowGroups('/dispatch', (path) =>
    app.post(path, {
      config: { permission: BORROW_DISPATCH, idempotent: true },
      schema: {
        tags,
        summary: '按扫码借出（申请须为已审批；预留转为借用冻结，不扣库存；每个扫描行一条借用记录）',
        description: 'borrower_id 必填且须为本公司在职用户; borrower_name 取自用户表。扫描行须为在库, 每种物料合计不超过申请数量。',
        body: DispatchBody,
        response: { 201: DispatchResult, ...errorResponses },
      },
    }, async (request, reply) => reply.code(201).send(await dispatchBorrow(ctxOf(deps, request), request.body))),
  );

  inBothBorrowGroups('/records', (path) =>
    app.get(path, {
      schema: {
        tags,
        summary: '借用记录（按借用单号分页，含明细行与 can_transfer / is_mine / pending_transfer）',
        description: '普通用户（无 op_borrow_approval、op_borrow_dispatch、crossDomain）仅见自己借用、持有或待自己接收的借用单。',
        querystring: BorrowRecordsQuery,
        response: { 200: PageOf(BorrowSlipView), 500: errorResponses[400], ...errorResponses },
      },
    }, (request) => listBorrowRecords(ctxOf(deps, request), request.query)),
  );

  inBothBorrowGroups('/slip/:no/history', (path) =>
    app.get(path, {
      schema: {
        tags,
        summary: '借用单全部明细行的历史（一次返回，按实际时间排序）',
        params: SlipParams,
        response: { 200: Type.Array(HistoryEventView), ...errorResponses },
      },
    }, (request) => slipHistory(ctxOf(deps, request), request.params.no)),
  );

  inBothBorrowGroups('/:id/history', (path) =>
    app.get(path, {
      schema: {
        tags,
        summary: '单条借用记录的历史（借出、转移、归还、拆分）',
        params: IdParams,
        response: { 200: Type.Array(HistoryEventView), ...errorResponses },
      },
    }, (request) => lineHistory(ctxOf(deps, request), request.params.id)),
  );

  inBothBorrowGroups('/:id/return', (path) =>
    app.post(path, {
      config: { permission: BORROW_RETURN, idempotent: true },
      schema: {
        tags,
        summary: '归还（须为当前持有人，否则 403 NOT_HOLDER；仅增加可用数量）',
        params: IdParams,
        body: ReturnBody,
        response: { 200: BorrowLineView, ...errorResponses },
      },
    }, (request) => returnBorrowLine(ctxOf(deps, request), request.params.id, request.body)),
  );

  inBothBorrowGroups('/:id/split', (path) =>
    app.post(path, {
      config: { idempotent: true },
      schema: {
        tags,
        summary: '拆分借用行（仅当前持有人；拆出数量须小于未归还数量；有待处理转移时不可拆分）',
        params: IdParams,
        body: SplitBody,
        response: { 200: SplitResult, ...errorResponses },
      },
    }, (request) => splitBorrowLine(ctxOf(deps, request), request.params.id, request.body)),
  );
}

function registerTransferRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['borrow'];
  const transferResponse = { 200: TransferView, ...errorResponses };

  inBothBorrowGroups('/:id/transfer', (path) =>
    app.post(path, {
      config: { idempotent: true },
      schema: {
        tags,
        summary: '发起转移（仅当前持有人；整行转移，部分数量须先拆分 400 SPLIT_REQUIRED）',
        params: IdParams,
        body: TransferBody,
        response: { 201: TransferView, ...errorResponses },
      },
    }, async (request, reply) => reply.code(201).send(await initiateTransfer(ctxOf(deps, request), request.params.id, request.body))),
  );

  inBothBorrowGroups('/transfer/pending-count', (path) =>
    app.get(path, {
      schema: { tags, summary: '待我接收的转移数，以及我发起被拒绝且未确认的转移', response: { 200: PendingCountView, ...errorResponses } },
    }, (request) => pendingTransferCount(ctxOf(deps, request))),
  );

  inBothBorrowGroups('/transfer/reject-ack', (path) =>
    app.post(path, {
      schema: {
        tags,
        summary: '确认已知悉被拒绝的转移（仅发起人；重复确认无影响）',
        body: RejectAckBody,
        response: { 200: RejectAckResult, ...errorResponses },
      },
    }, (request) => acknowledgeRejections(ctxOf(deps, request), request.body)),
  );

  inBothBorrowGroups('/transfer/:id/accept', (path) =>
    app.post(path, {
      schema: { tags, summary: '接收转移（仅接收人；该行持有人变为接收人）', params: IdParams, response: transferResponse },
    }, (request) => acceptTransfer(ctxOf(deps, request), request.params.id)),
  );

  inBothBorrowGroups('/transfer/:id/reject', (path) =>
    app.post(path, {
      schema: { tags, summary: '拒绝转移（仅接收人；持有人不变）；请求体可省略', params: IdParams, body: ReasonBody, response: transferResponse },
      preValidation: bodyMayBeAbsent,
    }, (request) => rejectTransfer(ctxOf(deps, request), request.params.id, request.body?.reason)),
  );
}
