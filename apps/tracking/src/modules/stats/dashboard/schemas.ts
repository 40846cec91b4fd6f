import { Type, type Static } from 'typebox';
import { PageQuery } from '@wms/platform';
import { TASK_LOG_ACTIONS } from '../../../db/schema/index.js';
import { ProductStageSchema, ProductView } from '../../products/schemas.js';
import { ReminderView } from '../../reminders/schemas.js';
import { TaskView } from '../../tasks/schemas.js';
import { ActivityView } from '../activity.js';
import { CARD_KEYS } from '../cards.js';
import { DateRangeQuery, RangeView, RankingLimit } from '../stats-filters.js';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const CardKeySchema = Type.Enum(CARD_KEYS, { description: '卡片: ' + CARD_KEYS.join(', ') });
const CardKindSchema = Type.Enum(['product', 'task'] as const, { description: 'product: 明细为产品; task: 明细为任务' });

export const CardView = Type.Object({
  card: CardKeySchema,
  label: Type.String(),
  description: Type.String(),
  kind: CardKindSchema,
  count: Type.Integer(),
  items_path: Type.String({ description: '明细（下钻）接口路径，total 与 count 相同' }),
});
export type CardView = Static<typeof CardView>;

export const CardsView = Type.Object({
  generated_at: Type.String(),
  today: Type.String({ description: '今天（北京时间），逾期按它判断' }),
  cards: Type.Array(CardView),
});

export const CardParams = Type.Object({ card: CardKeySchema });
export type CardParams = Static<typeof CardParams>;

export const CardItemsQuery = Type.Object({ ...PageQuery });
export type CardItemsQuery = Static<typeof CardItemsQuery>;

export const CardItemsPage = Type.Object({
  card: CardKeySchema,
  label: Type.String(),
  kind: CardKindSchema,
  items: Type.Array(Type.Union([ProductView, TaskView]), { description: 'kind=product 时为产品，kind=task 时为任务' }),
  total: Type.Integer({ description: '与卡片的 count 相同' }),
  page: Type.Integer(),
  limit: Type.Integer(),
});

export const WipDistributionView = Type.Object({
  total: Type.Integer({ description: '在制品（生产中）总数 = items 之和' }),
  items: Type.Array(Type.Object({ stage: ProductStageSchema, count: Type.Integer() }), { description: '按工序顺序；数量为 0 的工序不列出' }),
});

export const MonthlyProductionQuery = Type.Object({
  months: Type.Optional(Type.Integer({ minimum: 1, maximum: 36, description: '截至本月的月数，默认 12' })),
});
export type MonthlyProductionQuery = Static<typeof MonthlyProductionQuery>;

export const MonthlyProductionView = Type.Object({
  months: Type.Integer(),
  items: Type.Array(
    Type.Object({
      month: Type.String({ description: 'YYYY-MM（北京时间）' }),
      started: Type.Integer({ description: '当月新建的产品数' }),
      completed: Type.Integer({ description: '当月完成生产（转 待仓库收货）的产品数' }),
    }),
  ),
  total_started: Type.Integer(),
  total_completed: Type.Integer(),
});

export const DashboardRemindersQuery = Type.Object({ limit: RankingLimit(50, 10) });
export type DashboardRemindersQuery = Static<typeof DashboardRemindersQuery>;

export const DashboardRemindersView = Type.Object({
  unread: Type.Integer({ description: '我的未读提醒总数' }),
  items: Type.Array(
    Type.Intersect([ReminderView, Type.Object({ task_title: Type.Union([Type.String(), Type.Null()]) })]),
    { description: '最新在前' },
  ),
});

export const PeopleHistoryFilter = Type.Object({
  ...DateRangeQuery,
  user_id: Type.Optional(Id),
  action: Type.Optional(Type.Enum(TASK_LOG_ACTIONS)),
});
export type PeopleHistoryFilter = Static<typeof PeopleHistoryFilter>;

export const PeopleHistoryQuery = Type.Object({ ...PeopleHistoryFilter.properties, ...PageQuery });
export type PeopleHistoryQuery = Static<typeof PeopleHistoryQuery>;

export const PersonSummaryView = Type.Object({
  user_id: Type.Integer(),
  name: Type.String(),
  logs: Type.Integer({ description: '日志条数' }),
  tasks: Type.Integer({ description: '涉及的任务数' }),
  tasks_finished: Type.Integer({ description: '完成（FINISH）的任务数' }),
  hours: Type.Number({ description: '记录的工时之和' }),
  last_activity_at: Type.String(),
});
export type PersonSummaryView = Static<typeof PersonSummaryView>;

export const PeopleHistoryPage = Type.Object({
  ...RangeView,
  items: Type.Array(ActivityView, { description: '工作记录（任务日志），最新在前' }),
  total: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  people: Type.Array(PersonSummaryView, { description: '同一筛选下每人的汇总，工时多的在前' }),
});

export const RecentActivityQuery = Type.Object({ limit: RankingLimit(100, 20) });
export type RecentActivityQuery = Static<typeof RecentActivityQuery>;

export const RecentActivityView = Type.Object({ items: Type.Array(ActivityView, { description: '最新在前' }) });
