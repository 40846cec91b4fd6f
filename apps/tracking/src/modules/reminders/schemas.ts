import { Type, type Static } from 'typebox';
import { PageQuery, timeRangeQuery } from '@wms/platform';

export const ReminderView = Type.Object({
  id: Type.Integer(),
  user_id: Type.Integer(),
  task_id: Type.Union([Type.Integer(), Type.Null()]),
  content: Type.String(),
  read_at: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(),
});
export type ReminderView = Static<typeof ReminderView>;

export const ReminderListQuery = Type.Object({
  ...PageQuery,
  unread: Type.Optional(Type.Boolean({ description: 'true: 只看未读' })),
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '提醒内容（不区分大小写）' })),
  ...timeRangeQuery('提醒时间'),
});
export type ReminderListQuery = Static<typeof ReminderListQuery>;

export const ReminderPage = Type.Object({
  items: Type.Array(ReminderView),
  total: Type.Integer(),
  page: Type.Integer(),
  limit: Type.Integer(),
  unread: Type.Integer({ description: '符合条件的未读提醒数' }),
});
