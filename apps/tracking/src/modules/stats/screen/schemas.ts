import { Type, type Static } from 'typebox';
import { LifecyclePhaseSchema, ProductStageSchema } from '../../products/schemas.js';
import { TaskStatusSchema, TaskTypeSchema } from '../../tasks/schemas.js';
import { DateRangeQuery, RangeView, RankingLimit } from '../stats-filters.js';

export const ScreenSummaryView = Type.Object({
  generated_at: Type.String(),
  today: Type.String({ description: '今天（北京时间）' }),
  products: Type.Object({
    total: Type.Integer(),
    in_production: Type.Integer(),
    awaiting_warehouse: Type.Integer(),
    stocked_in: Type.Integer(),
    shipped: Type.Integer(),
    after_sales: Type.Integer(),
  }),
  tasks: Type.Object({
    total: Type.Integer(),
    todo: Type.Integer(),
    in_progress: Type.Integer(),
    done: Type.Integer(),
    overdue: Type.Integer(),
  }),
});

export const LineStatusView = Type.Object({
  today: Type.String(),
  items: Type.Array(
    Type.Object({
      stage: ProductStageSchema,
      products: Type.Integer({ description: '停在该工序的生产中产品' }),
      tasks_todo: Type.Integer(),
      tasks_in_progress: Type.Integer(),
      tasks_overdue: Type.Integer(),
      tasks_done_today: Type.Integer(),
    }),
    { description: '产线看板：五道工序按顺序全部列出（含 0）' },
  ),
});

export const TodayView = Type.Object({
  date: Type.String({ description: '今天（北京时间）' }),
  products_started: Type.Integer(),
  products_completed: Type.Integer(),
  stocked_in: Type.Integer(),
  shipped: Type.Integer(),
  tasks_created: Type.Integer(),
  tasks_done: Type.Integer(),
  logs: Type.Integer(),
  hours: Type.Number(),
  active_people: Type.Integer({ description: '今天记录过日志的人数' }),
  by_hour: Type.Array(Type.Object({ hour: Type.Integer({ minimum: 0, maximum: 23 }), logs: Type.Integer(), tasks_done: Type.Integer() }), {
    description: '0–23 时（北京时间），共 24 项：logs 按日志时间，tasks_done 按任务完成时间；各列之和等于当天的 logs 与 tasks_done',
  }),
});

export const RANKING_METRICS = ['tasks_done', 'hours', 'logs'] as const;
export type RankingMetric = (typeof RANKING_METRICS)[number];

export const RankingQuery = Type.Object({
  ...DateRangeQuery,
  metric: Type.Optional(Type.Enum(RANKING_METRICS, { description: 'tasks_done 完成任务数（默认）, hours 工时, logs 日志条数' })),
  limit: RankingLimit(50, 10),
});
export type RankingQuery = Static<typeof RankingQuery>;

export const RankingView = Type.Object({
  ...RangeView,
  metric: Type.Enum(RANKING_METRICS),
  items: Type.Array(
    Type.Object({
      rank: Type.Integer({ description: '并列同名次' }),
      user_id: Type.Integer(),
      name: Type.String(),
      tasks_done: Type.Integer(),
      hours: Type.Number(),
      logs: Type.Integer(),
    }),
    { description: '指标大于 0 的人员，从高到低' },
  ),
});

export const AlertsQuery = Type.Object({ limit: RankingLimit(100, 20) });
export type AlertsQuery = Static<typeof AlertsQuery>;

export const AlertsView = Type.Object({
  today: Type.String(),
  total: Type.Integer({ description: '逾期任务总数（= 看板 overdue_tasks 卡片）' }),
  items: Type.Array(
    Type.Object({
      task_id: Type.Integer(),
      title: Type.String(),
      type: TaskTypeSchema,
      stage: Type.Union([ProductStageSchema, Type.Null()]),
      status: TaskStatusSchema,
      due_date: Type.String(),
      days_overdue: Type.Integer(),
      assignee_id: Type.Union([Type.Integer(), Type.Null()]),
      assignee_name: Type.Union([Type.String(), Type.Null()]),
      product_id: Type.Integer(),
      serial_number: Type.String(),
      model: Type.String(),
      lifecycle_phase: LifecyclePhaseSchema,
    }),
    { description: '逾期最久的在前' },
  ),
});
