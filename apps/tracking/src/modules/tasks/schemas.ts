import { Type, type Static } from 'typebox';
import { DateString, PageQuery, timeRangeQuery } from '@wms/platform';
import { TASK_STATUSES, TASK_TYPES } from '../../db/schema/index.js';
import { LifecyclePhaseSchema, ProductStageSchema } from '../products/schemas.js';

const Id = Type.Integer({ minimum: 1, maximum: 2147483647 });
const NullableInteger = Type.Union([Type.Integer(), Type.Null()]);
const NullableString = Type.Union([Type.String(), Type.Null()]);

export const TaskTypeSchema = Type.Enum(TASK_TYPES);
export const TaskStatusSchema = Type.Enum(TASK_STATUSES);

/** Actions a client may log; CREATE is written by the service when the task is created. */
export const CLIENT_LOG_ACTIONS = ['START', 'PROGRESS', 'FINISH', 'COMMENT'] as const;

export const TaskView = Type.Object({
  id: Type.Integer(),
  product_id: Type.Integer(),
  product_serial_number: Type.String(),
  title: Type.String(),
  type: TaskTypeSchema,
  stage: Type.Union([ProductStageSchema, Type.Null()]),
  status: TaskStatusSchema,
  assignee_id: NullableInteger,
  assignee_name: NullableString,
  due_date: Type.Union([Type.String({ description: 'YYYY-MM-DD' }), Type.Null()]),
  started_at: NullableString,
  finished_at: NullableString,
  hours: Type.Number({ description: '各条日志工时之和' }),
  created_by: NullableInteger,
  created_at: Type.String(),
  updated_at: Type.String(),
});
export type TaskView = Static<typeof TaskView>;

const Title = Type.String({ minLength: 1, maxLength: 200, pattern: '\\S' });
const DueDate = Type.Union([DateString, Type.Null()]);

export const CreateTaskBody = Type.Object({
  product_id: Id,
  title: Title,
  type: Type.Optional(Type.Enum(TASK_TYPES, { description: '默认: 售后阶段产品为 AFTER_SALES，否则 PRODUCTION' })),
  stage: Type.Optional(Type.Union([ProductStageSchema, Type.Null()])),
  assignee_id: Type.Optional(Type.Union([Id, Type.Null()], { description: '指派后给负责人发提醒' })),
  due_date: Type.Optional(DueDate),
});
export type CreateTaskBody = Static<typeof CreateTaskBody>;

export const UpdateTaskBody = Type.Object(
  {
    title: Type.Optional(Title),
    type: Type.Optional(TaskTypeSchema),
    stage: Type.Optional(Type.Union([ProductStageSchema, Type.Null()])),
    status: Type.Optional(Type.Enum(TASK_STATUSES, { description: '按日志同样的规则流转，并记一条日志' })),
    assignee_id: Type.Optional(Type.Union([Id, Type.Null()])),
    due_date: Type.Optional(DueDate),
  },
  { minProperties: 1, description: '部分更新；工时 hours 由日志累计，不能直接修改' },
);
export type UpdateTaskBody = Static<typeof UpdateTaskBody>;

export const TaskListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '任务标题或产品序列号（不区分大小写）' })),
  product_id: Type.Optional(Id),
  status: Type.Optional(TaskStatusSchema),
  type: Type.Optional(TaskTypeSchema),
  stage: Type.Optional(ProductStageSchema),
  assignee_id: Type.Optional(Id),
  lifecycle_phase: Type.Optional(LifecyclePhaseSchema),
  ...timeRangeQuery('创建时间'),
});
export type TaskListQuery = Static<typeof TaskListQuery>;

export const TaskLogView = Type.Object({
  id: Type.Integer(),
  task_id: Type.Integer(),
  user_id: Type.Integer(),
  user_name: Type.String(),
  action: Type.String(),
  content: Type.String(),
  hours: Type.Number(),
  created_at: Type.String(),
});
export type TaskLogView = Static<typeof TaskLogView>;

export const CreateTaskLogBody = Type.Object({
  action: Type.Enum(CLIENT_LOG_ACTIONS, { description: 'START 开始, PROGRESS 进展, FINISH 完成, COMMENT 备注' }),
  content: Type.Optional(Type.String({ maxLength: 2000 })),
  hours: Type.Optional(Type.Number({ minimum: 0, maximum: 1000, description: '本次工时，累加到任务的 hours' })),
});
export type CreateTaskLogBody = Static<typeof CreateTaskLogBody>;

export const TaskLogListQuery = Type.Object({
  ...PageQuery,
  keyword: Type.Optional(Type.String({ maxLength: 200, description: '内容或记录人（姓名、用户名），不区分大小写' })),
  ...timeRangeQuery('记录时间'),
});
export type TaskLogListQuery = Static<typeof TaskLogListQuery>;
