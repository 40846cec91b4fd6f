import { sql } from 'drizzle-orm';
import { check, date, index, integer, numeric, pgTable, serial, text, timestamp } from 'drizzle-orm/pg-core';
import { users } from './identity.js';
import { products, type ProductStage } from './products.js';

export const TASK_TYPES = ['PRODUCTION', 'INSPECTION', 'REPAIR', 'AFTER_SALES'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

export const TASK_STATUSES = ['TODO', 'IN_PROGRESS', 'DONE'] as const;
export type TaskStatus = (typeof TASK_STATUSES)[number];

/** CREATE is written by the service when a task is created; clients post the others. */
export const TASK_LOG_ACTIONS = ['CREATE', 'START', 'PROGRESS', 'FINISH', 'COMMENT'] as const;
export type TaskLogAction = (typeof TASK_LOG_ACTIONS)[number];

/**
 * A task on one product. `hours` is the sum of its logs' hours (kept by the log writer, never set
 * directly); started_at is the first start, finished_at the last finish.
 */
export const tasks = pgTable(
  'tasks',
  {
    id: serial('id').primaryKey(),
    productId: integer('product_id').notNull().references(() => products.id),
    title: text('title').notNull(),
    type: text('type').$type<TaskType>().notNull(),
    stage: text('stage').$type<ProductStage>(),
    status: text('status').$type<TaskStatus>().notNull().default('TODO'),
    assigneeId: integer('assignee_id').references(() => users.id),
    dueDate: date('due_date', { mode: 'string' }),
    startedAt: timestamp('started_at', { withTimezone: true }),
    finishedAt: timestamp('finished_at', { withTimezone: true }),
    hours: numeric('hours', { precision: 10, scale: 2 }).notNull().default('0'),
    createdBy: integer('created_by').references(() => users.id),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('tasks_product_idx').on(t.productId),
    index('tasks_assignee_status_idx').on(t.assigneeId, t.status),
    index('tasks_status_due_idx').on(t.status, t.dueDate),
    check('tasks_type_valid', sql`${t.type} in ('PRODUCTION', 'INSPECTION', 'REPAIR', 'AFTER_SALES')`),
    check('tasks_status_valid', sql`${t.status} in ('TODO', 'IN_PROGRESS', 'DONE')`),
    check('tasks_stage_valid', sql`${t.stage} is null or ${t.stage} in ('装配', '调试', '老化', '检验', '包装')`),
    check('tasks_hours_non_negative', sql`${t.hours} >= 0`),
  ],
);

export type TaskRow = typeof tasks.$inferSelect;

export const taskLogs = pgTable(
  'task_logs',
  {
    id: serial('id').primaryKey(),
    taskId: integer('task_id').notNull().references(() => tasks.id),
    userId: integer('user_id').notNull().references(() => users.id),
    action: text('action').$type<TaskLogAction>().notNull(),
    content: text('content').notNull().default(''),
    hours: numeric('hours', { precision: 10, scale: 2 }).notNull().default('0'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    index('task_logs_task_idx').on(t.taskId, t.createdAt),
    index('task_logs_user_idx').on(t.userId, t.createdAt),
    // statistics read logs by time across all users (people history, recent activity, ranking, today)
    index('task_logs_created_idx').on(t.createdAt),
    check('task_logs_action_valid', sql`${t.action} in ('CREATE', 'START', 'PROGRESS', 'FINISH', 'COMMENT')`),
    check('task_logs_hours_non_negative', sql`${t.hours} >= 0`),
  ],
);

export type TaskLogRow = typeof taskLogs.$inferSelect;

/** The spec's Notification: a reminder for one user, e.g. "a task was assigned to you". */
export const reminders = pgTable(
  'reminders',
  {
    id: serial('id').primaryKey(),
    userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    taskId: integer('task_id').references(() => tasks.id, { onDelete: 'set null' }),
    content: text('content').notNull(),
    readAt: timestamp('read_at', { withTimezone: true }),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('reminders_user_idx').on(t.userId, t.readAt)],
);

export type ReminderRow = typeof reminders.$inferSelect;
