import { API_PREFIX, ErrorBody, errorResponses, tooManyAttemptsResponse } from '@wms/platform';
import type { TrackingDeps, TrackingFastify } from '../../app-types.js';
import { SerialParams } from '../products/schemas.js';
import { receiveOutbound } from './outbound-receiver.js';
import { productCard } from './product-card-service.js';
import { receiverContextOf } from './receiver-context.js';
import { OutboundNotice, ProductCard, ReceiverAnswer, StockInNotice } from './schemas.js';
import { receiveStockIn } from './stock-in-receiver.js';

const responses = { ...errorResponses, ...tooManyAttemptsResponse, 422: ErrorBody, 503: ErrorBody };

const RECEIVER_RULES =
  'X-API-Key 须等于 WEBHOOK_API_KEY（缺失或错误 401，同一地址错误次数过多 429 TOO_MANY_ATTEMPTS，未配置 503 KEY_NOT_CONFIGURED）。company_name 去空格转大写后等于 ORG_DEPARTMENT 才处理，' +
  '否则 200 { ok: true, matched: false, reason: "ignored_company" } 且不写任何数据。已处理的 event_id 再次投递答 duplicate: true 且不做修改。' +
  'operator 写入审计（部门用户的显示名，否则账号；无 operator 为 库存系统）。';

/**
 * The inventory service's side door (spec 4.1, 5.2; contract §5, §6, §8): the two notification receivers
 * and the identity-card lookup, authenticated by X-API-Key = the webhook key setting, no token.
 */
export function registerIntegrationRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['integrations'];
  const config = { apiKey: () => deps.config.webhookApiKey };
  const security = [{ apiKey: [] }];

  app.post(`${API_PREFIX}/integrations/inventory/stock-in`, {
    config,
    schema: {
      tags,
      security,
      summary: '接收库存服务的入库通知：序列号匹配的产品 待仓库收货 → 已入库',
      description: RECEIVER_RULES,
      body: StockInNotice,
      response: { 200: ReceiverAnswer, ...responses },
    },
  }, (request) => receiveStockIn(receiverContextOf(deps, request), request.body));

  app.post(`${API_PREFIX}/integrations/inventory/outbound`, {
    config,
    schema: {
      tags,
      security,
      summary: '接收库存服务的出库通知：各明细序列号匹配的产品 → 已出库',
      description: `${RECEIVER_RULES} 至少一个明细匹配时 matched 为 true。`,
      body: OutboundNotice,
      response: { 200: ReceiverAnswer, ...responses },
    },
  }, (request) => receiveOutbound(receiverContextOf(deps, request), request.body));

  app.get(`${API_PREFIX}/integrations/products/:sn`, {
    config,
    schema: {
      tags,
      security,
      summary: '按序列号查询产品身份卡（供库存服务预填入库）；未知序列号 404',
      params: SerialParams,
      response: { 200: ProductCard, ...responses },
    },
  }, (request) => productCard(receiverContextOf(deps, request), request.params.sn));
}
