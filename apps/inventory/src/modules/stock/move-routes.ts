import { errorResponses, IdParams, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { LocationMovesQuery, MoveStockBody, MoveStockResult, RowMovesQuery, StockMoveView } from './move-schemas.js';
import { moveStock } from './stock-move-service.js';
import { listMovesAtLocation, listMovesOfRow } from './stock-moves-read-service.js';
import { inBothStockGroups } from './stock-paths.js';

/** Moving stock between locations and its history (docs/decisions.md, Stocktake and stock moves). */
export function registerStockMoveRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['stock'];

  inBothStockGroups('/moves', (path) =>
    app.get(path, {
      schema: {
        tags,
        summary: '库位移动记录（location 为库位前缀，移出或移入均算；新的在前）',
        querystring: LocationMovesQuery,
        response: { 200: PageOf(StockMoveView), ...errorResponses },
      },
    }, (request) => listMovesAtLocation(ctxOf(deps, request), request.query)),
  );

  inBothStockGroups('/:id/move', (path) =>
    app.post(path, {
      config: { permission: 'inbound_stock:operation', idempotent: true },
      schema: {
        tags,
        summary: '移库：不传 quantity（或等于库存数量）整行移动，需无预留/借出（否则 400 IN_USE）；传较小数量则从可用数量中拆出新行（新 sku）',
        description: '预留或借出的数量不会被移动：拆分数量不能超过可用数量（400 QUANTITY_EXCEEDS）。每次移动记录操作人、时间、原库位、新库位、数量。',
        params: IdParams,
        body: MoveStockBody,
        response: { 200: MoveStockResult, ...errorResponses },
      },
    }, (request) => moveStock(ctxOf(deps, request), request.params.id, request.body)),
  );

  inBothStockGroups('/:id/moves', (path) =>
    app.get(path, {
      schema: {
        tags,
        summary: '一条库存行的移库记录（移出及拆分生成该行的记录；新的在前）',
        params: IdParams,
        querystring: RowMovesQuery,
        response: { 200: PageOf(StockMoveView), ...errorResponses },
      },
    }, (request) => listMovesOfRow(ctxOf(deps, request), request.params.id, request.query)),
  );
}
