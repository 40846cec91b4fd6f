import { API_PREFIX, errorResponses, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { inBothStockGroups } from '../stock/stock-paths.js';
import { listReturns } from './return-list-service.js';
import { returnFromOutbound } from './return-from-outbound-service.js';
import { ReturnFromOutboundBody, ReturnListQuery, ReturnResult, ReturnView } from './schemas.js';

/** Return from outbound and the return records (spec 4.1, contract §4). */
export function registerReturnRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['returns'];

  inBothStockGroups('/return-from-outbound', (path) =>
    app.post(path, {
      config: { permission: 'outbound_return', idempotent: true },
      schema: {
        tags,
        summary: '出库退货：良品加回原库存行（须存在且在库），不良品登记不良品台账；可选补发（免审批、严格预留）',
        description:
          '退货数量不得超过该出库明细的出库数量减已退数量 (400 QUANTITY_EXCEEDS)。补发数量默认等于退货数量且不得超过它。' +
          '补发申请人: reissue_applicant_id → 原出库申请人 → 否则 400 NO_APPLICANT，从不取调用者。补发库存不足 400 STOCK_SHORTAGE，整笔退货回滚。',
        body: ReturnFromOutboundBody,
        response: { 201: ReturnResult, ...errorResponses },
      },
    }, async (request, reply) => reply.code(201).send(await returnFromOutbound(ctxOf(deps, request), request.body))),
  );

  app.get(`${API_PREFIX}/outbound/returns`, {
    config: { permission: ['outbound_return', 'outbound_return_list'] },
    schema: {
      tags,
      summary: '退货记录（按公司快照隔离，最新在前）',
      querystring: ReturnListQuery,
      response: { 200: PageOf(ReturnView), ...errorResponses },
    },
  }, (request) => listReturns(ctxOf(deps, request), request.query));
}
