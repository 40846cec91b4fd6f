import { Type } from 'typebox';
import { API_PREFIX, errorResponses, PageOf, sendXlsx, XlsxDownload } from '@wms/platform';
import { ctxOf, type InventoryDeps, type InventoryFastify } from '../../app-types.js';
import { activeSession } from './active-session-service.js';
import { adjustStock } from './adjust-service.js';
import { stocktakeCompanies } from './companies-service.js';
import { addDraft, updateQuantity } from './count-writes-service.js';
import { clearDrafts, listDrafts } from './drafts-service.js';
import { exportFileName, exportStocktake } from './export-service.js';
import { generateMissing } from './generate-missing-service.js';
import { allItems, mergedList } from './merged-list-service.js';
import { recommendLocations } from './recommend-locations-service.js';
import { scanForCount } from './scan-service.js';
import {
  ActiveSessionView,
  AddDraftBody,
  AdjustBody,
  AdjustResult,
  AllItemsQuery,
  AllItemsResult,
  ClearResult,
  ActiveSessionQuery,
  DraftListQuery,
  DraftView,
  GenerateMissingResult,
  MergedListQuery,
  MergedListResult,
  RecommendedLocation,
  RecommendQuery,
  ScannedItemView,
  ScanQuery,
  SessionIdBody,
  SessionQuery,
  StartSessionBody,
  StartSessionResult,
  TreeNodeView,
  TreeQuery,
  UpdateQuantityBody,
  VarianceQuery,
  VarianceReport,
} from './schemas.js';
import { startNewSession } from './start-session-service.js';
import { varianceReport } from './variance-report-service.js';
import { warehouseTree } from './warehouse-tree-service.js';

const READ = 'inventory_stocktake';
const WRITE = 'inventory_stocktake:operation';
const BLIND_NOTE = '盲盘进行中（或会话不存在）时账面数量 stock_qty 与差异 diff_qty 为 null，显示为「—」。';

/**
 * Stocktake (spec 2.10, 3.9, 4.6; contract §4, §8). Paths exactly as the spec writes them, without a group
 * prefix; /v1/warehouse/tree is served at /api/v1/warehouse/tree. Reads need inventory_stocktake, writes
 * inventory_stocktake:operation (spec §5).
 */
export function registerStocktakeRoutes(app: InventoryFastify, deps: InventoryDeps) {
  const tags = ['stocktake'];
  const path = (suffix: string) => `${API_PREFIX}${suffix}`;

  app.get(path('/stocktake/companies'), {
    config: { permission: READ },
    schema: { tags, summary: '可盘点的公司（普通账号只有本公司）', response: { 200: Type.Array(Type.String()), ...errorResponses } },
  }, (request) => stocktakeCompanies(ctxOf(deps, request)));

  app.get(path('/draft/active-session'), {
    config: { permission: READ },
    schema: {
      tags,
      summary: '本公司进行中的盘点会话（没有则为 null）；scanned 为已盘物品数（不含 system）',
      querystring: ActiveSessionQuery,
      response: { 200: Type.Union([ActiveSessionView, Type.Null()]), ...errorResponses },
    },
  }, (request) => activeSession(ctxOf(deps, request), request.query.company));

  app.post(path('/draft/start-new'), {
    config: { permission: WRITE, idempotent: true },
    schema: {
      tags,
      summary: '开始新的盘点会话：同公司之前进行中的会话在同一事务中结束（记录保留）',
      description: 'scope_type active 需要库位列表（去空格、去重、保持顺序，最多 2000 个），创建时冻结；full 没有库位。跨公司账号必须指定 company_name。',
      body: StartSessionBody,
      response: { 201: StartSessionResult, ...errorResponses },
    },
  }, async (request, reply) => reply.code(201).send(await startNewSession(ctxOf(deps, request), request.body)));

  app.post(path('/draft/clear'), {
    config: { permission: WRITE, idempotent: true },
    schema: { tags, summary: '清空进行中会话的盘点记录', body: SessionIdBody, response: { 200: ClearResult, ...errorResponses } },
  }, (request) => clearDrafts(ctxOf(deps, request), request.body.session_id));

  app.get(path('/draft/list'), {
    config: { permission: READ },
    schema: { tags, summary: '会话的盘点记录（数据库分页；uuid 精确筛选）', querystring: DraftListQuery, response: { 200: PageOf(DraftView), ...errorResponses } },
  }, (request) => listDrafts(ctxOf(deps, request), request.query));

  app.post(path('/draft/add'), {
    config: { permission: WRITE },
    schema: {
      tags,
      summary: '扫码盘点一个物品：每个会话每个物品一条记录，再次扫码覆盖数量并记录最后操作人',
      description: '条码先精确匹配；他公司条码 403 OTHER_COMPANY；未知 404；任何库存状态均可盘点；不在冻结范围内 400 OUTSIDE_SCOPE。',
      body: AddDraftBody,
      response: { 200: DraftView, ...errorResponses },
    },
  }, (request) => addDraft(ctxOf(deps, request), request.body));

  app.get(path('/draft/merged-list'), {
    config: { permission: READ },
    schema: {
      tags,
      summary: '库存行与盘点记录合并列表 { list, total, total_scanned, mode, page, limit }',
      description: `${BLIND_NOTE} 零库存行只有在本会话盘点过才出现；冻结范围外的行不出现。status_filter match/diff 在进行中的盲盘为 400。`,
      querystring: MergedListQuery,
      response: { 200: MergedListResult, ...errorResponses },
    },
  }, (request) => mergedList(ctxOf(deps, request), request.query));

  app.get(path('/stocktake/all-items'), {
    config: { permission: READ },
    schema: {
      tags,
      summary: '会话（默认本公司进行中的会话）的全部物品，分页',
      description: BLIND_NOTE,
      querystring: AllItemsQuery,
      response: { 200: AllItemsResult, ...errorResponses },
    },
  }, (request) => allItems(ctxOf(deps, request), request.query));

  app.post(path('/stocktake/generate-missing'), {
    config: { permission: WRITE, idempotent: true },
    schema: {
      tags,
      summary: '为范围内未盘点的有库存行生成 0 数量记录（system），并结束会话',
      body: SessionIdBody,
      response: { 200: GenerateMissingResult, ...errorResponses },
    },
  }, (request) => generateMissing(ctxOf(deps, request), request.body.session_id));

  app.post(path('/stocktake/update-quantity'), {
    config: { permission: WRITE },
    schema: {
      tags,
      summary: '修改已盘点物品的实盘数量（没有盘点记录 404，请先扫码）；remark 只在传入时修改',
      body: UpdateQuantityBody,
      response: { 200: DraftView, ...errorResponses },
    },
  }, (request) => updateQuantity(ctxOf(deps, request), request.body));

  app.get(path('/stocktake/recommend-locations'), {
    config: { permission: READ },
    schema: {
      tags,
      summary: '按近 days 天的出库、入库、借用、移库次数推荐盘点库位（不保存）',
      querystring: RecommendQuery,
      response: { 200: Type.Array(RecommendedLocation), ...errorResponses },
    },
  }, (request) => recommendLocations(ctxOf(deps, request), request.query));

  app.get(path('/warehouse/tree'), {
    config: { permission: READ },
    schema: {
      tags,
      summary: '库位树（由库存行库位生成）；prefixes 按顶层节点名称或完整路径前缀筛选并保留整棵子树',
      querystring: TreeQuery,
      response: { 200: Type.Array(TreeNodeView), ...errorResponses },
    },
  }, (request) => warehouseTree(ctxOf(deps, request), request.query));

  app.get(path('/export-stocktake'), {
    config: { permission: READ },
    schema: {
      tags,
      summary: '导出盘点 xlsx：盘点汇总、盘点差异明细、盘点一致、未盘点',
      description: '进行中的盲盘：四张表的账面数量与差异均为「—」，实盘数量照常显示；会话结束后显示。',
      querystring: SessionQuery,
      response: { 200: XlsxDownload, ...errorResponses },
    },
  }, async (request, reply) => {
    const workbook = await exportStocktake(ctxOf(deps, request), request.query.session_id);
    return sendXlsx(reply, exportFileName(request.query.session_id), workbook);
  });

  app.get(path('/variance-report'), {
    config: { permission: READ },
    schema: {
      tags,
      summary: '盘点差异报告：账面（现在与盘点时）、实盘、差异、盘点后账面是否变动',
      description: '进行中的盲盘：账面与差异为 null，only_diff 为 400。',
      querystring: VarianceQuery,
      response: { 200: VarianceReport, ...errorResponses },
    },
  }, (request) => varianceReport(ctxOf(deps, request), request.query));

  app.post(path('/adjust'), {
    config: { permission: WRITE, idempotent: true },
    schema: {
      tags,
      summary: '按已结束会话的实盘数量调整库存（uuids 不传则调整全部有差异的物品）',
      description:
        '跳过并列出：没有盘点记录、库存行已删除、盘点后账面变动（force: true 时照样调整）、可用数量不足以扣减（已预留或借出）。每条调整写入审计，库存下降时触发低库存检查。',
      body: AdjustBody,
      response: { 200: AdjustResult, ...errorResponses },
    },
  }, (request) => adjustStock(ctxOf(deps, request), request.body));

  app.get(path('/scan'), {
    config: { permission: READ },
    schema: {
      tags,
      summary: '盘点扫码查询：条码对应的物品及本会话的盘点数量（盲盘进行中不显示账面）',
      querystring: ScanQuery,
      response: { 200: ScannedItemView, ...errorResponses },
    },
  }, (request) => scanForCount(ctxOf(deps, request), request.query));
}
