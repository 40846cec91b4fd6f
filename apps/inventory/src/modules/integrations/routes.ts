import { API_PREFIX, ErrorBody, errorResponses, IdParams, PageOf, SUPER_ADMIN_ONLY } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { inBothStockGroups } from '../stock/stock-paths.js';
import { identityCard } from './identity-card-service.js';
import { listOutbox, retryOutboxMessage } from './outbox-service.js';
import { IdentityCardQuery, IdentityCardView, OutboxListQuery, OutboxMessageView, SerialNumberParams } from './schemas.js';

/**
 * The inventory side of the link to the production-tracking service (contract §4, §5, §8): the
 * notification outbox as SUPER_ADMIN sees it, and the identity-card lookup that prefills a stock-in.
 */
export function registerIntegrationRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['integrations'];

  app.get(`${API_PREFIX}/integrations/outbox`, {
    config: { permission: SUPER_ADMIN_ONLY },
    schema: {
      tags,
      summary: '通知发件箱：发往生产追踪服务的入库/出库通知及投递状态（仅超级管理员）',
      description: 'status=failed 查看无法投递的通知（attempts、last_error）。最新的在前。',
      querystring: OutboxListQuery,
      response: { 200: PageOf(OutboxMessageView), ...errorResponses },
    },
  }, (request) => listOutbox(ctxOf(deps, request), request.query));

  app.post(`${API_PREFIX}/integrations/outbox/:id/retry`, {
    config: { permission: SUPER_ADMIN_ONLY, idempotent: true },
    schema: {
      tags,
      summary: '重新投递一条失败的通知（failed → pending，尝试次数清零；仅超级管理员）',
      params: IdParams,
      response: { 200: OutboxMessageView, ...errorResponses },
    },
  }, (request) => retryOutboxMessage(ctxOf(deps, request), request.params.id));

  inBothStockGroups('/card/:serial_number', (path) =>
    app.get(path, {
      config: { permission: 'inbound_stock:operation' },
      schema: {
        tags: ['stock'],
        summary: '扫描生产追踪身份卡：按序列号向生产追踪服务查询产品，返回成品入库的预填值',
        description: '未知序列号 404；生产追踪服务未配置、无法访问或拒绝时 503 UPSTREAM_UNAVAILABLE（reason 说明原因）。',
        params: SerialNumberParams,
        querystring: IdentityCardQuery,
        response: { 200: IdentityCardView, ...errorResponses, 503: ErrorBody },
      },
    }, (request) => identityCard(ctxOf(deps, request), { ...request.query, serial_number: request.params.serial_number }, deps.config)),
  );
}
