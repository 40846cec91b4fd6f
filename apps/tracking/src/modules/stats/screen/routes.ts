import { API_PREFIX } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../../app-types.js';
import { SCOPE_NOTE, statsResponses } from '../stats-docs.js';
import { AlertsQuery, AlertsView, LineStatusView, RankingQuery, RankingView, ScreenSummaryView, TodayView } from './schemas.js';
import { lineStatus, overdueAlerts, ranking, screenSummary, screenToday } from './screen-service.js';

/** Big-screen statistics: every route needs a login and counts only the caller's data scope (spec 4.3). */
export function registerScreenRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['statistics: screen'];
  const base = `${API_PREFIX}/screen`;

  app.get(`${base}/summary`, {
    schema: {
      tags,
      summary: '大屏总览',
      description: `产品总数及各状态数量，任务总数、待办、进行中、已完成与逾期数量。${SCOPE_NOTE}`,
      response: { 200: ScreenSummaryView, ...statsResponses },
    },
  }, (request) => screenSummary(ctxOf(deps, request)));

  app.get(`${base}/line-status`, {
    schema: {
      tags,
      summary: '产线工序状态',
      description: `五道工序（装配、调试、老化、检验、包装）各自的在制产品数，以及该工序任务的待办、进行中、逾期和今日完成数；工序全部列出（含 0）。${SCOPE_NOTE}`,
      response: { 200: LineStatusView, ...statsResponses },
    },
  }, (request) => lineStatus(ctxOf(deps, request)));

  app.get(`${base}/today`, {
    schema: {
      tags,
      summary: '今日生产',
      description: `今天（北京时间）新建、完成生产、入库、出库的产品数，新建与完成的任务数，日志条数、工时、活跃人数，以及按小时的日志数和完成任务数。${SCOPE_NOTE}`,
      response: { 200: TodayView, ...statsResponses },
    },
  }, (request) => screenToday(ctxOf(deps, request)));

  app.get(`${base}/ranking`, {
    schema: {
      tags,
      summary: '人员排行',
      description: `时间范围内（默认最近 30 天，北京时间，最长 366 天）按 metric（完成任务数 / 工时 / 日志条数）排名的人员，并列同名次，最多 limit 人（默认 10）。只统计所属产品在数据范围内的日志。${SCOPE_NOTE}`,
      querystring: RankingQuery,
      response: { 200: RankingView, ...statsResponses },
    },
  }, (request) => ranking(ctxOf(deps, request), request.query));

  app.get(`${base}/alerts`, {
    schema: {
      tags,
      summary: '逾期预警',
      description: `逾期任务：截止日期早于今天（北京时间）且未完成，逾期最久的在前，最多 limit 条（默认 20）；total 为全部逾期数，与看板 overdue_tasks 卡片一致。${SCOPE_NOTE}`,
      querystring: AlertsQuery,
      response: { 200: AlertsView, ...statsResponses },
    },
  }, (request) => overdueAlerts(ctxOf(deps, request), request.query));
}
