import { errorResponses, IdParams, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { inBothStockGroups } from '../stock/stock-paths.js';
import { listLedger } from './ledger-list-service.js';
import { restockDefective } from './restock-service.js';
import { LedgerEntryView, LedgerListQuery, RestockBody } from './schemas.js';

/**
 * The in-custody ledger of defective goods (spec 4.2). Its scrap request
 * (/defective/:id/scrap-request) is registered by the scrap module: see scrap-request-seam.ts.
 */
export function registerDefectiveRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['defective'];

  inBothStockGroups('/defective', (path) =>
    app.get(path, {
      config: { permission: 'defective_list' },
      schema: {
        tags,
        summary: '不良品台账（暂存的不良品，不计入可分配库存）',
        querystring: LedgerListQuery,
        response: { 200: PageOf(LedgerEntryView), ...errorResponses },
      },
    }, (request) => listLedger(ctxOf(deps, request), request.query)),
  );

  inBothStockGroups('/defective/:id/restock', (path) =>
    app.post(path, {
      config: { permission: 'defective_restock', idempotent: true },
      schema: {
        tags,
        summary: '不良品恢复入库（可部分）：加回原库存行（须存在且在库），剩余数量为 0 时状态为 已退回库存',
        params: IdParams,
        body: RestockBody,
        response: { 200: LedgerEntryView, ...errorResponses },
      },
    }, (request) => restockDefective(ctxOf(deps, request), request.params.id, request.body)),
  );
}
