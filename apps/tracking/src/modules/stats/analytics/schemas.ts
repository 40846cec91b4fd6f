import { Type, type Static } from 'typebox';
import { ProductStageSchema, ProductStatusSchema, ProductView, SerialParams } from '../../products/schemas.js';
import { TaskStatusSchema, TaskTypeSchema, TaskView } from '../../tasks/schemas.js';
import { ActivityView } from '../activity.js';
import { DateRangeQuery, GranularitySchema, ProductFilterQuery, RangeView, StatsRangeQuery } from '../stats-filters.js';

const Hours = (description: string) => Type.Number({ description: `${description}（小时，保留两位小数；没有数据时为 0）` });
const NullableDate = Type.Union([Type.String(), Type.Null()]);

export const ThroughputQuery = Type.Object({ ...StatsRangeQuery.properties, granularity: Type.Optional(GranularitySchema) });
export type ThroughputQuery = Static<typeof ThroughputQuery>;

const ThroughputCounts = {
  started: Type.Integer({ description: '新建产品数' }),
  completed: Type.Integer({ description: '完成生产的产品数（转 待仓库收货）' }),
  stocked_in: Type.Integer({ description: '入库的产品数' }),
  shipped: Type.Integer({ description: '出库的产品数' }),
  tasks_done: Type.Integer({ description: '完成的任务数' }),
};

export const ThroughputView = Type.Object({
  granularity: GranularitySchema,
  ...RangeView,
  items: Type.Array(Type.Object({ period: Type.String({ description: '时段第一天 YYYY-MM-DD（周从周一开始，月从 1 日开始）' }), ...ThroughputCounts })),
  totals: Type.Object(ThroughputCounts),
});

export const DurationStats = Type.Object({
  count: Type.Integer(),
  avg_hours: Hours('平均'),
  min_hours: Hours('最短'),
  max_hours: Hours('最长'),
  p50_hours: Hours('中位数'),
  p90_hours: Hours('90 分位'),
});
export type DurationStats = Static<typeof DurationStats>;

export const CycleTimeView = Type.Object({
  ...RangeView,
  products: DurationStats,
  by_model: Type.Array(Type.Object({ model: Type.String(), count: Type.Integer(), avg_hours: Hours('平均') }), {
    description: '按型号，完成数多的在前，最多 20 个',
  }),
  tasks_by_type: Type.Array(
    Type.Object({ type: TaskTypeSchema, count: Type.Integer(), avg_hours: Hours('开始到完成平均'), avg_logged_hours: Hours('平均记录工时') }),
  ),
});

export const StageDurationView = Type.Object({
  ...RangeView,
  items: Type.Array(
    Type.Object({
      stage: ProductStageSchema,
      tasks: Type.Integer({ description: '该工序在范围内完成的任务数' }),
      avg_duration_hours: Hours('开始到完成平均'),
      avg_logged_hours: Hours('平均记录工时'),
      total_logged_hours: Hours('记录工时合计'),
    }),
    { description: '五道工序按顺序全部列出' },
  ),
});

const OptionalRange = {
  start_date: Type.Union([Type.String(), Type.Null()], { description: '未指定时间范围时为 null（统计全部）' }),
  end_date: Type.Union([Type.String(), Type.Null()]),
};

export const TaskStatusView = Type.Object({
  ...OptionalRange,
  total: Type.Integer(),
  overdue: Type.Integer({ description: '截止日期已过且未完成' }),
  by_status: Type.Array(Type.Object({ status: TaskStatusSchema, label: Type.String(), count: Type.Integer() })),
  by_type: Type.Array(
    Type.Object({ type: TaskTypeSchema, label: Type.String(), total: Type.Integer(), todo: Type.Integer(), in_progress: Type.Integer(), done: Type.Integer() }),
  ),
});

export const AfterSalesQuery = Type.Object({ ...DateRangeQuery, group_id: ProductFilterQuery.group_id, model: ProductFilterQuery.model });
export type AfterSalesQuery = Static<typeof AfterSalesQuery>;

export const AfterSalesView = Type.Object({
  ...OptionalRange,
  products_total: Type.Integer({ description: '售后阶段的产品数（当前）' }),
  by_status: Type.Array(Type.Object({ status: ProductStatusSchema, count: Type.Integer() }), { description: '数量为 0 的状态不列出' }),
  tasks: Type.Object({
    total: Type.Integer(),
    open: Type.Integer(),
    done: Type.Integer(),
    overdue: Type.Integer(),
    avg_resolution_hours: Hours('已完成任务从创建到完成的平均'),
  }),
  by_model: Type.Array(Type.Object({ model: Type.String(), products: Type.Integer(), tasks: Type.Integer() }), {
    description: '按型号，产品多的在前，最多 20 个',
  }),
});

export const ByGroupQuery = Type.Object({ ...DateRangeQuery, lifecycle_phase: ProductFilterQuery.lifecycle_phase, model: ProductFilterQuery.model });
export type ByGroupQuery = Static<typeof ByGroupQuery>;

export const ByGroupView = Type.Object({
  ...OptionalRange,
  items: Type.Array(
    Type.Object({
      group_id: Type.Union([Type.Integer(), Type.Null()], { description: 'null: 未分组' }),
      group_name: Type.String(),
      products: Type.Integer(),
      in_production: Type.Integer(),
      completed: Type.Integer({ description: '已完成生产（有完成时间）的产品' }),
      open_tasks: Type.Integer(),
      done_tasks: Type.Integer(),
      hours: Type.Number({ description: '任务记录工时合计' }),
    }),
    { description: '只列出数据范围内有产品的业务组，产品多的在前' },
  ),
});

const Option = Type.Object({ value: Type.String(), label: Type.String() });
const NamedId = Type.Object({ id: Type.Integer(), name: Type.String() });

export const FilterOptionsView = Type.Object({
  phases: Type.Array(Option, { description: '可见的生命周期阶段' }),
  statuses: Type.Array(Option, { description: '数据范围内出现的产品状态' }),
  stages: Type.Array(Option, { description: '数据范围内出现的工序（产品当前工序或任务工序）' }),
  models: Type.Array(Type.String(), { description: '数据范围内的型号' }),
  groups: Type.Array(NamedId, { description: '数据范围内有产品的业务组' }),
  task_types: Type.Array(Option),
  task_statuses: Type.Array(Option),
  users: Type.Array(NamedId, { description: '数据范围内任务的负责人和记录日志的人员' }),
});

export const DeviceRecordQuery = Type.Object({ sn: SerialParams.properties.sn });
export type DeviceRecordQuery = Static<typeof DeviceRecordQuery>;

export const DeviceRecordView = Type.Array(
  Type.Object({
    product: ProductView,
    stocked_in_at: NullableDate,
    shipped_at: NullableDate,
    tasks: Type.Array(TaskView),
    logs: Type.Array(ActivityView, { description: '按时间顺序' }),
  }),
  { description: '序列号在数据范围内时为一条记录，否则（范围外或不存在）为空列表' },
);
