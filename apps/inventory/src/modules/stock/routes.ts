import { errorResponses, IdParams, PageOf, sendXlsx, SUPER_ADMIN_ONLY, XlsxDownload } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import {
  ChangeStatusBody,
  LedgerReconcileView,
  ReconcileQuery,
  ScanQuery,
  StockExportQuery,
  StockInBody,
  StockListQuery,
  StockRowQuery,
  StockRowView,
  UpdateStockBody,
} from './schemas.js';
import { reconcileStockLedgerNow } from './ledger-reconcile.js';
import { registerStockMoveRoutes } from './move-routes.js';
import { deleteStockRow } from './stock-delete-service.js';
import { exportStockRows, STOCK_EXPORT_CAP } from './stock-export.js';
import { stockIn } from './stock-in-service.js';
import { inBothStockGroups } from './stock-paths.js';
import { getStockRow, listStockRows } from './stock-read-service.js';
import { scanStockRow } from './stock-scan-service.js';
import { changeStockStatus } from './stock-status-service.js';
import { updateStockRow } from './stock-update-service.js';

const STOCK_WRITE = 'inbound_stock:operation';
const PRICE_NOTE = 'unit_cost 需 inbound_purchase:unit_price, referencePrice 需 material_list:referencePrice, 无权限时字段不返回。';

/** Stock rows of all three kinds (spec 2.2, 4.2; contract §4). Reading needs only a login (contract §3). */
export function registerStockRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['stock'];

  inBothStockGroups('', (path) =>
    app.post(path, {
      config: { permission: STOCK_WRITE, idempotent: true },
      schema: {
        tags,
        summary: '入库：新建库存行（库存 = 可用 = 入库数量，状态 在库）',
        description: `sku 不传则自动生成；sku 在三类库存与所有公司间唯一，重复为 409 DUPLICATE。${PRICE_NOTE}`,
        body: StockInBody,
        response: { 201: StockRowView, ...errorResponses },
      },
    }, async (request, reply) => reply.code(201).send(await stockIn(ctxOf(deps, request), request.body))),
  );

  for (const suffix of ['/list', '']) {
    inBothStockGroups(suffix, (path) =>
      app.get(path, {
        schema: {
          tags,
          summary: '库存列表（三类库存，含物料名称、规格、单位、类别、公司）',
          description: `warehouse_location 为库位前缀；start_date、end_date 按入库日期 in_date 筛选（闭区间）；company 仅跨公司账号有效。${PRICE_NOTE}`,
          querystring: StockListQuery,
          response: { 200: PageOf(StockRowView), ...errorResponses },
        },
      }, (request) => listStockRows(ctxOf(deps, request), request.query)),
    );
  }

  inBothStockGroups('/export', (path) =>
    app.get(path, {
      schema: {
        tags,
        summary: `导出库存 xlsx（筛选同列表，不分页，新的在前；上限 ${STOCK_EXPORT_CAP} 行，截断时写入文件名）`,
        description: `价格列的权限同列表：${PRICE_NOTE}`,
        querystring: StockExportQuery,
        response: { 200: XlsxDownload, ...errorResponses },
      },
    }, async (request, reply) => {
      const { fileName, workbook } = await exportStockRows(ctxOf(deps, request), request.query);
      return sendXlsx(reply, fileName, workbook);
    }),
  );

  inBothStockGroups('/scan', (path) =>
    app.get(path, {
      schema: {
        tags,
        summary: '扫码查询库存行：先精确匹配 sku（他公司条码 403 OTHER_COMPANY），再模糊匹配（多条 400 AMBIGUOUS_BARCODE）',
        description: `任何状态的库存行都可查到。${PRICE_NOTE}`,
        querystring: ScanQuery,
        response: { 200: StockRowView, ...errorResponses },
      },
    }, (request) => scanStockRow(ctxOf(deps, request), request.query.barcode)),
  );

  // Contract §8: the ledger identity is checked by a reconcile job (installLedgerReconcileJob); this runs it on demand.
  inBothStockGroups('/reconcile', (path) =>
    app.get(path, {
      config: { permission: SUPER_ADMIN_ONLY },
      schema: {
        tags,
        summary: '库存对账：核对每行 可用数量 = 库存 − 未结申请预留 − 借出未还（仅超级管理员；后台任务每小时核对一次并记录错误日志）',
        querystring: ReconcileQuery,
        response: { 200: LedgerReconcileView, ...errorResponses },
      },
    }, (request) => reconcileStockLedgerNow(ctxOf(deps, request), request.query.company)),
  );

  inBothStockGroups('/:id', (path) => {
    app.get(path, {
      schema: { tags, summary: '库存行详情', params: IdParams, querystring: StockRowQuery, response: { 200: StockRowView, ...errorResponses } },
    }, (request) => getStockRow(ctxOf(deps, request), request.params.id, request.query.source_table));

    app.put(path, {
      config: { permission: STOCK_WRITE, idempotent: true },
      schema: {
        tags,
        summary: '修改库存行：stock_quantity 为新的实物数量，可用数量同步增减；低于已预留/借出数量为 400 QUANTITY_BELOW_RESERVED',
        params: IdParams,
        body: UpdateStockBody,
        response: { 200: StockRowView, ...errorResponses },
      },
    }, (request) => updateStockRow(ctxOf(deps, request), request.params.id, request.body));

    app.delete(path, {
      config: { permission: STOCK_WRITE, idempotent: true },
      schema: {
        tags,
        summary: '删除库存行，答复删除前的库存行（有预留或借出数量时 400 IN_USE）',
        params: IdParams,
        querystring: StockRowQuery,
        response: { 200: StockRowView, ...errorResponses },
      },
    }, (request) => deleteStockRow(ctxOf(deps, request), request.params.id, request.query.source_table));
  });

  registerStockMoveRoutes(app, deps);

  inBothStockGroups('/:id/change-status', (path) =>
    app.post(path, {
      config: { permission: 'stock_change_status', idempotent: true },
      schema: {
        tags,
        summary: '修改库存状态（在库、冻结、不良品之间任意切换；数量与预留不变；相同状态原样返回）',
        params: IdParams,
        body: ChangeStatusBody,
        response: { 200: StockRowView, ...errorResponses },
      },
    }, (request) => changeStockStatus(ctxOf(deps, request), request.params.id, request.body)),
  );
}
