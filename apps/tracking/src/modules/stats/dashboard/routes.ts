import { API_PREFIX, sendXlsx, XlsxDownload } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../../app-types.js';
import { statsResponses, SCOPE_NOTE } from '../stats-docs.js';
import { cardItems, dashboardCards } from './cards-service.js';
import { dashboardReminders, monthlyProduction, recentActivity, wipDistribution } from './overview-service.js';
import { exportPeopleHistory, peopleHistory, PEOPLE_HISTORY_FILE_NAME } from './people-history.js';
import {
  CardItemsPage,
  CardItemsQuery,
  CardParams,
  CardsView,
  DashboardRemindersQuery,
  DashboardRemindersView,
  MonthlyProductionQuery,
  MonthlyProductionView,
  PeopleHistoryFilter,
  PeopleHistoryPage,
  PeopleHistoryQuery,
  RecentActivityQuery,
  RecentActivityView,
  WipDistributionView,
} from './schemas.js';

/** Dashboard statistics: every route needs a login and counts only the caller's data scope (spec 4.3). */
export function registerDashboardRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['statistics: dashboard'];
  const base = `${API_PREFIX}/dashboard`;

  app.get(`${base}/cards`, {
    schema: {
      tags,
      summary: '看板卡片（产品与任务计数）',
      description: `产品卡片（in_production, awaiting_warehouse, stocked_in, shipped, after_sales）按产品数据范围计数；任务卡片（open_tasks, overdue_tasks, done_this_month）先关联产品再按同一范围计数。每张卡片的 count 与其明细接口 items_path 的 total 使用同一筛选条件。${SCOPE_NOTE}`,
      response: { 200: CardsView, ...statsResponses },
    },
  }, (request) => dashboardCards(ctxOf(deps, request)));

  app.get(`${base}/cards/:card/items`, {
    schema: {
      tags,
      summary: '看板卡片明细（下钻）',
      description: `卡片背后的产品或任务，分页；筛选条件与卡片计数完全相同（total = 卡片 count）。逾期任务按截止日期从早到晚，其余最新在前。未知卡片为 422。${SCOPE_NOTE}`,
      params: CardParams,
      querystring: CardItemsQuery,
      response: { 200: CardItemsPage, ...statsResponses },
    },
  }, (request) => cardItems(ctxOf(deps, request), request.params.card, request.query));

  app.get(`${base}/wip-distribution`, {
    schema: {
      tags,
      summary: '在制品工序分布',
      description: `生产中的产品按当前工序（装配→包装）计数。只去掉当前数据范围内数量为 0 的工序；total 始终等于 items 之和。${SCOPE_NOTE}`,
      response: { 200: WipDistributionView, ...statsResponses },
    },
  }, (request) => wipDistribution(ctxOf(deps, request)));

  app.get(`${base}/monthly-production`, {
    schema: {
      tags,
      summary: '月度产量',
      description: `截至本月的 months 个月（北京时间），每月新建（started）与完成生产（completed，转 待仓库收货）的产品数；没有数据的月份为 0。按普通的产品数据范围过滤，不做特殊处理。${SCOPE_NOTE}`,
      querystring: MonthlyProductionQuery,
      response: { 200: MonthlyProductionView, ...statsResponses },
    },
  }, (request) => monthlyProduction(ctxOf(deps, request), request.query));

  app.get(`${base}/reminders`, {
    schema: {
      tags,
      summary: '我的未读提醒',
      description: '当前用户自己的未读提醒（最新在前，最多 limit 条）与未读总数。提醒只属于本人，不按数据范围过滤。',
      querystring: DashboardRemindersQuery,
      response: { 200: DashboardRemindersView, ...statsResponses },
    },
  }, (request) => dashboardReminders(ctxOf(deps, request), request.query));

  app.get(`${base}/people-history`, {
    schema: {
      tags,
      summary: '人员工作记录',
      description: `时间范围内（start_date/end_date，北京时间，含结束日整天；默认最近 30 天，最长 366 天）的任务日志，最新在前，分页；people 为同一筛选下每人的日志数、任务数、完成数与工时。只统计所属产品在数据范围内的日志。${SCOPE_NOTE}`,
      querystring: PeopleHistoryQuery,
      response: { 200: PeopleHistoryPage, ...statsResponses },
    },
  }, (request) => peopleHistory(ctxOf(deps, request), request.query));

  app.get(`${base}/people-history/export`, {
    schema: {
      tags,
      summary: '导出人员工作记录 xlsx',
      description: `与人员工作记录相同的筛选（不分页），工作表「工作记录」与「人员汇总」。按数据范围过滤。${SCOPE_NOTE}`,
      querystring: PeopleHistoryFilter,
      response: { 200: XlsxDownload, ...statsResponses },
    },
  }, async (request, reply) => {
    const workbook = await exportPeopleHistory(ctxOf(deps, request), request.query);
    return sendXlsx(reply, PEOPLE_HISTORY_FILE_NAME, workbook);
  });

  app.get(`${base}/recent-activity`, {
    schema: {
      tags,
      summary: '最新动态',
      description: `数据范围内最新的任务日志（最多 limit 条，默认 20）。${SCOPE_NOTE}`,
      querystring: RecentActivityQuery,
      response: { 200: RecentActivityView, ...statsResponses },
    },
  }, (request) => recentActivity(ctxOf(deps, request), request.query));
}
