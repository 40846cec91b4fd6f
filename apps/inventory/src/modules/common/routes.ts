import { API_PREFIX, errorResponses, PageOf } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { dictionaryLabels } from './labels.js';
import { listMyRequests } from './my-requests-service.js';
import { DictionaryLabels, MyRequestsQuery, MyRequestView } from './schemas.js';

/** Common endpoints (spec 4.9) for any logged-in user; active users live with identity. */
export function registerCommonRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['common'];

  app.get(`${API_PREFIX}/common/my-requests`, {
    schema: {
      tags,
      summary: '我的申请：出库、借用、报废、采购合并列表（本人提交，最新在前，分页）',
      querystring: MyRequestsQuery,
      response: { 200: PageOf(MyRequestView), ...errorResponses },
    },
  }, (request) => listMyRequests(ctxOf(deps, request), request.query));

  app.get(`${API_PREFIX}/common/labels`, {
    schema: { tags, summary: '字典标签：各业务的枚举值与中文名称', response: { 200: DictionaryLabels, ...errorResponses } },
  }, () => dictionaryLabels());
}
