import { eq } from 'drizzle-orm';
import { expect } from 'vitest';
import { products } from '../src/db/schema/index.js';
import type { TestTracking, TestUser } from './helpers.js';
import { createProduct, createTask, groupedUser } from './scope-fixtures.js';

/**
 * One small factory for the statistics tests, seen by four users:
 *   admin  SUPER_ADMIN, unrestricted
 *   prod   OPERATOR in a PRODUCTION group
 *   after  ENGINEER in an AFTER_SALES group
 *   empty  OPERATOR in a group without phases (empty scope: sees nothing)
 *
 * Products (model, phase, status, stage):
 *   a1 TX-100 PRODUCTION 生产中 装配 (prod's group)   a2 TX-100 PRODUCTION 生产中 装配
 *   d1 TX-200 PRODUCTION 生产中 调试                  w1 TX-200 PRODUCTION 待仓库收货 (completed today)
 *   s1 TX-100 PRODUCTION 已入库 (created and completed ~2 months ago)
 *   h1 TX-200 PRODUCTION 已出库 (created 3 days ago, completed 1 day ago: 48 h cycle)
 *   as1 TX-900 AFTER_SALES 售后中 (after's group)     rw TX-900 AFTER_SALES 生产中 老化 (rework)
 * Tasks:
 *   t1 a1 装配 TODO, due 2020-01-01 (overdue), assignee prod, prod COMMENT '=1+1'
 *   t2 a2 装配 DONE by prod (START 2 h, FINISH 1.5 h), assignee prod
 *   t3 d1 调试 IN_PROGRESS by admin (START 1 h)
 *   t4 as1 AFTER_SALES TODO, due 2020-01-02 (overdue), assignee prod (a reminder outside prod's scope), after PROGRESS 0.5 h
 *   t5 rw 老化 REPAIR DONE by after (START, FINISH 1 h), assignee empty
 * Every task has the service's CREATE log by admin: 12 logs in all, 7 on PRODUCTION products, 5 on AFTER_SALES.
 */
export interface StatsWorld {
  admin: string;
  prod: TestUser & { groupId: number };
  after: TestUser & { groupId: number };
  empty: TestUser & { groupId: number };
  products: Record<'a1' | 'a2' | 'd1' | 'w1' | 's1' | 'h1' | 'as1' | 'rw', { id: number; serial_number: string }>;
  tasks: Record<'t1' | 't2' | 't3' | 't4' | 't5', { id: number }>;
  /** Instants the fixture wrote straight into the table. */
  backdated: { s1Created: Date; s1Completed: Date; h1Created: Date; h1Completed: Date };
}

const HOUR = 3600_000;

async function patchProduct(t: TestTracking, id: number, body: Record<string, unknown>) {
  const res = await t.request('PATCH', `/api/v1/products/${id}`, { token: t.adminToken, body });
  expect(res.statusCode, res.body).toBe(200);
}

async function log(t: TestTracking, taskId: number, token: string, body: Record<string, unknown>) {
  const res = await t.request('POST', `/api/v1/tasks/${taskId}/logs`, { token, body });
  expect(res.statusCode, res.body).toBe(201);
}

/** Columns only the inventory receivers write (已入库 / 已出库) and backdated times. */
async function writeProduct(t: TestTracking, id: number, values: Partial<typeof products.$inferInsert>) {
  await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) => tx.update(products).set(values).where(eq(products.id, id)));
}

export async function buildStatsWorld(t: TestTracking): Promise<StatsWorld> {
  const prod = await groupedUser(t, 'OPERATOR', ['PRODUCTION']);
  const after = await groupedUser(t, 'ENGINEER', ['AFTER_SALES']);
  const empty = await groupedUser(t, 'OPERATOR', []);

  const make = (body: Record<string, unknown>) => createProduct(t, body);
  const a1 = await make({ model: 'TX-100', group_id: prod.groupId });
  const a2 = await make({ model: 'TX-100' });
  const d1 = await make({ model: 'TX-200', current_stage: '调试' });
  const w1 = await make({ model: 'TX-200', current_stage: '包装' });
  const s1 = await make({ model: 'TX-100', current_stage: '包装' });
  const h1 = await make({ model: 'TX-200', current_stage: '包装' });
  const as1 = await make({ model: 'TX-900', lifecycle_phase: 'AFTER_SALES', group_id: after.groupId });
  const rw = await make({ model: 'TX-900', lifecycle_phase: 'AFTER_SALES' });

  await patchProduct(t, w1.id, { status: '待仓库收货' });
  await patchProduct(t, rw.id, { status: '待仓库收货' });
  await patchProduct(t, rw.id, { status: '生产中', current_stage: '老化' });
  const now = Date.now();
  const backdated = {
    s1Created: new Date(now - 65 * 24 * HOUR),
    s1Completed: new Date(now - 62 * 24 * HOUR),
    h1Created: new Date(now - 72 * HOUR),
    h1Completed: new Date(now - 24 * HOUR),
  };
  await writeProduct(t, s1.id, { status: '已入库', createdAt: backdated.s1Created, completedAt: backdated.s1Completed, stockedInAt: backdated.s1Completed });
  await writeProduct(t, h1.id, { status: '已出库', createdAt: backdated.h1Created, completedAt: backdated.h1Completed, stockedInAt: backdated.h1Completed, shippedAt: new Date(now) });

  const t1 = await createTask(t, { product_id: a1.id, stage: '装配', assignee_id: prod.id, due_date: '2020-01-01', title: '装配 a1' });
  const t2 = await createTask(t, { product_id: a2.id, stage: '装配', assignee_id: prod.id, title: '装配 a2' });
  const t3 = await createTask(t, { product_id: d1.id, stage: '调试', title: '调试 d1' });
  const t4 = await createTask(t, { product_id: as1.id, assignee_id: prod.id, due_date: '2020-01-02', title: '售后 as1' });
  const t5 = await createTask(t, { product_id: rw.id, type: 'REPAIR', stage: '老化', assignee_id: empty.id, title: '返修 rw' });

  await log(t, t1.id, prod.token, { action: 'COMMENT', content: '=1+1' });
  await log(t, t2.id, prod.token, { action: 'START', hours: 2 });
  await log(t, t2.id, prod.token, { action: 'FINISH', hours: 1.5 });
  await log(t, t3.id, t.adminToken, { action: 'START', hours: 1 });
  await log(t, t4.id, after.token, { action: 'PROGRESS', hours: 0.5 });
  await log(t, t5.id, after.token, { action: 'START' });
  await log(t, t5.id, after.token, { action: 'FINISH', hours: 1 });

  return {
    admin: t.adminToken,
    prod,
    after,
    empty,
    products: { a1, a2, d1, w1, s1, h1, as1, rw },
    tasks: { t1, t2, t3, t4, t5 },
    backdated,
  };
}

/** GET as that user; asserts 200 and answers the JSON body. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any
export async function getOk<T = any>(t: TestTracking, token: string, path: string): Promise<T> {
  const res = await t.request('GET', `/api/v1${path}`, { token });
  expect(res.statusCode, `${path}: ${res.body}`).toBe(200);
  return res.json() as T;
}

/** Every statistics route (contract §8) with a query that makes it answer 200. */
export const STATS_ROUTES = [
  '/dashboard/cards',
  '/dashboard/cards/in_production/items',
  '/dashboard/wip-distribution',
  '/dashboard/monthly-production',
  '/dashboard/reminders',
  '/dashboard/people-history',
  '/dashboard/people-history/export',
  '/dashboard/recent-activity',
  '/analytics/throughput',
  '/analytics/cycle-time',
  '/analytics/stage-duration',
  '/analytics/task-status',
  '/analytics/after-sales',
  '/analytics/by-group',
  '/analytics/filter-options',
  '/analytics/device-record?sn=ABC',
  '/screen/summary',
  '/screen/line-status',
  '/screen/today',
  '/screen/ranking',
  '/screen/alerts',
] as const;
