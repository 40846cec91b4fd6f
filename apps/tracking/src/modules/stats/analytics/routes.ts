import { API_PREFIX } from '@wms/platform';
import { ctxOf, type TrackingDeps, type TrackingFastify } from '../../../app-types.js';
import { SCOPE_NOTE, statsResponses } from '../stats-docs.js';
import { StatsRangeQuery } from '../stats-filters.js';
import { afterSales, byGroup, taskStatus } from './breakdown-service.js';
import { deviceRecord, filterOptions } from './lookup-service.js';
import {
  AfterSalesQuery,
  AfterSalesView,
  ByGroupQuery,
  ByGroupView,
  CycleTimeView,
  DeviceRecordQuery,
  DeviceRecordView,
  FilterOptionsView,
  StageDurationView,
  TaskStatusView,
  ThroughputQuery,
  ThroughputView,
} from './schemas.js';
import { cycleTime, stageDuration, throughput } from './trends-service.js';

const RANGE_NOTE = 'start_date/end_date 为北京时间日期（含结束日整天），默认最近 30 天；lifecycle_phase、group_id、model 只能在数据范围内进一步筛选。';
const OPTIONAL_RANGE_NOTE = '不传 start_date/end_date 时统计全部；传入时按北京时间日期（含结束日整天）筛选。';

/** Analytics statistics: every route needs a login and counts only the caller's data scope (spec 4.3). */
export function registerAnalyticsRoutes(app: TrackingFastify, deps: TrackingDeps) {
  const tags = ['statistics: analytics'];
  const base = `${API_PREFIX}/analytics`;

  app.get(`${base}/throughput`, {
    schema: {
      tags,
      summary: '产出趋势',
      description: `按日/周/月（granularity）统计新建、完成生产、入库、出库的产品数和完成的任务数；没有数据的时段为 0。按日最长 366 天，按周/月最长 1096 天。${RANGE_NOTE}${SCOPE_NOTE}`,
      querystring: ThroughputQuery,
      response: { 200: ThroughputView, ...statsResponses },
    },
  }, (request) => throughput(ctxOf(deps, request), request.query));

  app.get(`${base}/cycle-time`, {
    schema: {
      tags,
      summary: '生产周期',
      description: `范围内完成生产的产品从创建到完成的时长（平均、最短、最长、中位数、90 分位，小时），按型号的平均值；范围内完成的任务从开始到完成的时长，按任务类型。${RANGE_NOTE}${SCOPE_NOTE}`,
      querystring: StatsRangeQuery,
      response: { 200: CycleTimeView, ...statsResponses },
    },
  }, (request) => cycleTime(ctxOf(deps, request), request.query));

  app.get(`${base}/stage-duration`, {
    schema: {
      tags,
      summary: '工序耗时',
      description: `五道工序各自在范围内完成的任务数、开始到完成的平均时长、平均与合计记录工时。${RANGE_NOTE}${SCOPE_NOTE}`,
      querystring: StatsRangeQuery,
      response: { 200: StageDurationView, ...statsResponses },
    },
  }, (request) => stageDuration(ctxOf(deps, request), request.query));

  app.get(`${base}/task-status`, {
    schema: {
      tags,
      summary: '任务状态分布',
      description: `任务按状态、按类型×状态计数，以及逾期数。${OPTIONAL_RANGE_NOTE}（按任务创建时间）${SCOPE_NOTE}`,
      querystring: StatsRangeQuery,
      response: { 200: TaskStatusView, ...statsResponses },
    },
  }, (request) => taskStatus(ctxOf(deps, request), request.query));

  app.get(`${base}/after-sales`, {
    schema: {
      tags,
      summary: '售后统计',
      description: `当前处于售后阶段的产品（按状态、按型号）及其任务（总数、未完成、已完成、逾期、平均处理时长）。${OPTIONAL_RANGE_NOTE}（只筛选任务的创建时间）数据范围不含售后阶段的用户得到 0。${SCOPE_NOTE}`,
      querystring: AfterSalesQuery,
      response: { 200: AfterSalesView, ...statsResponses },
    },
  }, (request) => afterSales(ctxOf(deps, request), request.query));

  app.get(`${base}/by-group`, {
    schema: {
      tags,
      summary: '按业务组统计',
      description: `按产品所属业务组（未分组单列）统计产品数、生产中、已完成生产、未完成与已完成任务及工时。${OPTIONAL_RANGE_NOTE}（按产品创建时间）${SCOPE_NOTE}`,
      querystring: ByGroupQuery,
      response: { 200: ByGroupView, ...statsResponses },
    },
  }, (request) => byGroup(ctxOf(deps, request), request.query));

  app.get(`${base}/filter-options`, {
    schema: {
      tags,
      summary: '统计筛选项',
      description: `统计筛选用的选项：可见阶段、产品状态、工序、型号、业务组、任务类型与状态、人员。选项只来自调用者数据范围内的数据；空范围得到空列表。${SCOPE_NOTE}`,
      response: { 200: FilterOptionsView, ...statsResponses },
    },
  }, (request) => filterOptions(ctxOf(deps, request)));

  app.get(`${base}/device-record`, {
    schema: {
      tags,
      summary: '设备履历',
      description: `按序列号 sn（完全匹配，不区分大小写）查询设备的产品信息、任务与日志。序列号不在数据范围内或不存在时返回空列表（不是 403/404）。${SCOPE_NOTE}`,
      querystring: DeviceRecordQuery,
      response: { 200: DeviceRecordView, ...statsResponses },
    },
  }, (request) => deviceRecord(ctxOf(deps, request), request.query));
}
