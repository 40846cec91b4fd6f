import { beijingDate, beijingMidnight } from '@wms/platform';
import { and, eq, gte, lt, ne, sql, type SQL } from 'drizzle-orm';
import { products, tasks } from '../../db/schema/index.js';
import { monthBounds } from './stats-filters.js';

/**
 * The dashboard cards. A card is a condition on products or on tasks (joined to their product); the
 * card's number and its drill-down list both run `scope AND condition`, so they always agree.
 */
export const CARD_KEYS = [
  'in_production',
  'awaiting_warehouse',
  'stocked_in',
  'shipped',
  'after_sales',
  'open_tasks',
  'overdue_tasks',
  'done_this_month',
] as const;
export type CardKey = (typeof CARD_KEYS)[number];
export type CardKind = 'product' | 'task';

/** "Now" as the cards see it: today's Beijing date and this Beijing month. */
export interface CardClock {
  today: string;
  monthFrom: Date;
  monthTo: Date;
}

export function cardClockOf(now: Date): CardClock {
  const today = beijingDate(now);
  const month = monthBounds(today);
  return { today, monthFrom: beijingMidnight(month.first), monthTo: beijingMidnight(month.next) };
}

/** Overdue: the due date has passed (before today, Beijing) and the task is not DONE. */
export function overdueCondition(today: string): SQL {
  return and(ne(tasks.status, 'DONE'), lt(tasks.dueDate, today))!;
}

export interface CardDefinition {
  label: string;
  description: string;
  kind: CardKind;
  condition(clock: CardClock): SQL;
}

export const CARDS: Readonly<Record<CardKey, CardDefinition>> = {
  in_production: { label: '生产中', description: '状态为 生产中 的产品', kind: 'product', condition: () => eq(products.status, '生产中') },
  awaiting_warehouse: { label: '待仓库收货', description: '状态为 待仓库收货 的产品', kind: 'product', condition: () => eq(products.status, '待仓库收货') },
  stocked_in: { label: '已入库', description: '状态为 已入库 的产品', kind: 'product', condition: () => eq(products.status, '已入库') },
  shipped: { label: '已出库', description: '状态为 已出库 的产品', kind: 'product', condition: () => eq(products.status, '已出库') },
  after_sales: { label: '售后中', description: '状态为 售后中 的产品', kind: 'product', condition: () => eq(products.status, '售后中') },
  open_tasks: { label: '未完成任务', description: '状态不是 DONE 的任务', kind: 'task', condition: () => ne(tasks.status, 'DONE') },
  overdue_tasks: {
    label: '逾期任务',
    description: '截止日期已过（早于今天，北京时间）且未完成的任务',
    kind: 'task',
    condition: (clock) => overdueCondition(clock.today),
  },
  done_this_month: {
    label: '本月完成任务',
    description: '本月（北京时间）完成的任务：状态 DONE 且完成时间在本月',
    kind: 'task',
    condition: (clock) => and(eq(tasks.status, 'DONE'), gte(tasks.finishedAt, clock.monthFrom), lt(tasks.finishedAt, clock.monthTo))!,
  },
};

export const cardKeysOf = (kind: CardKind) => CARD_KEYS.filter((key) => CARDS[key].kind === kind);

/** `count(*) filter (where condition)` as an integer, for one-query card counts. */
export const countWhere = (condition: SQL) => sql<number>`count(*) filter (where ${condition})`.mapWith(Number);
