import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { createProduct, createTask } from './scope-fixtures.js';
import { buildStatsWorld, getOk, STATS_ROUTES, type StatsWorld } from './stats-fixtures.js';

const beijingDay = (offsetDays = 0) => new Date(Date.now() + 8 * 3600_000 + offsetDays * 86_400_000).toISOString().slice(0, 10);
const ids = (items: { id: number }[]) => items.map((item) => item.id);

describe('statistics routes: login, OpenAPI and bad input', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('answers 401 without a token and 200 with one, for every statistics route', async () => {
    for (const path of STATS_ROUTES) {
      const anonymous = await t.request('GET', `/api/v1${path}`);
      expect(anonymous.statusCode, path).toBe(401);
      expect(anonymous.json(), path).toMatchObject({ code: 'UNAUTHENTICATED', msg: expect.any(String) });
      const wrong = await t.request('GET', `/api/v1${path}`, { token: 'not-a-token' });
      expect(wrong.statusCode, path).toBe(401);
      const ok = await t.request('GET', `/api/v1${path}`, { token: t.adminToken });
      expect(ok.statusCode, `${path}: ${ok.body}`).toBe(200);
    }
  });

  it('documents every statistics route in OpenAPI with a summary, a description and a response schema', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).json();
    const paths = STATS_ROUTES.map((path) => `/api/v1${path.split('?')[0]!.replace('/cards/in_production/', '/cards/{card}/')}`);
    expect(new Set(paths).size).toBe(21);
    for (const path of paths) {
      const operation = doc.paths[path]?.get;
      expect(operation, path).toBeDefined();
      expect(operation.summary, path).toEqual(expect.any(String));
      expect(operation.description, path).toContain('数据范围');
      const ok = operation.responses['200'];
      expect(ok, path).toBeDefined();
      expect(JSON.stringify(ok), path).toMatch(/schema/);
      expect(operation.responses['401'], path).toBeDefined();
      expect(operation.responses['422'], path).toBeDefined();
    }
  });

  it('answers 422 with msg, code and field for bad query parameters', async () => {
    const bad = [
      '/analytics/throughput?granularity=hour',
      '/analytics/throughput?start_date=2024-02-30',
      '/analytics/throughput?start_date=2024/01/01',
      '/analytics/throughput?start_date=2024-01-01&end_date=2025-06-01',
      '/analytics/throughput?granularity=month&start_date=2020-01-01&end_date=2024-01-01',
      '/analytics/throughput?lifecycle_phase=REPAIR',
      '/analytics/cycle-time?end_date=2024-01-01&start_date=2024-02-01',
      '/analytics/stage-duration?group_id=0',
      '/analytics/task-status?start_date=tomorrow',
      '/analytics/after-sales?end_date=2024-04-31',
      '/analytics/by-group?lifecycle_phase=x',
      '/analytics/device-record',
      '/analytics/device-record?sn=',
      '/analytics/device-record?sn=A%20B',
      `/analytics/device-record?sn=${'A'.repeat(65)}`,
      '/screen/ranking?metric=speed',
      '/screen/ranking?limit=-1',
      '/screen/ranking?start_date=2024-01-01&end_date=2025-12-31',
      '/screen/alerts?limit=0',
      '/screen/alerts?limit=abc',
    ];
    for (const path of bad) {
      const res = await t.request('GET', `/api/v1${path}`, { token: t.adminToken });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(422);
      expect(res.json(), path).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String), field: expect.any(String) });
    }
  });

  it('answers 422 naming the field for a date before 1900-01-01, and counts from 1900 on', async () => {
    const bad: [string, string][] = [
      ['/analytics/throughput?start_date=0001-01-01&end_date=0001-01-03', 'start_date'],
      ['/analytics/by-group?end_date=0001-01-05', 'end_date'],
      ['/screen/ranking?start_date=0001-01-01&end_date=0001-01-02', 'start_date'],
      ['/dashboard/people-history/export?end_date=0001-01-10', 'end_date'],
      ['/analytics/task-status?start_date=1899-12-31&end_date=1900-01-01', 'start_date'],
    ];
    for (const [path, field] of bad) {
      const res = await t.request('GET', `/api/v1${path}`, { token: t.adminToken });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(422);
      expect(res.json(), path).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.stringContaining('1900-01-01'), field });
    }
    const earliest = await getOk(t, t.adminToken, '/analytics/throughput?start_date=1900-01-01&end_date=1900-01-03');
    expect(earliest).toMatchObject({ start_date: '1900-01-01', end_date: '1900-01-03', totals: { started: 0, tasks_done: 0 } });
    expect(earliest.items).toHaveLength(3);
  });
});

describe('analytics and screen statistics by scope', () => {
  let t: TestTracking;
  let w: StatsWorld;

  beforeAll(async () => {
    t = await buildTestTracking();
    w = await buildStatsWorld(t);
  });
  afterAll(() => t.close());

  it('throughput counts product and task events per day, week or month inside the scope', async () => {
    const today = beijingDay();
    const admin = await getOk(t, w.admin, `/analytics/throughput?start_date=${beijingDay(-6)}&end_date=${today}`);
    expect(admin).toMatchObject({ granularity: 'day', start_date: beijingDay(-6), end_date: today });
    expect(admin.items.map((item: { period: string }) => item.period)).toEqual([-6, -5, -4, -3, -2, -1, 0].map(beijingDay));
    // started: 6 today + h1 three days ago; completed: w1 today + h1 yesterday; shipped: h1 today
    expect(admin.totals).toEqual({ started: 7, completed: 2, stocked_in: 1, shipped: 1, tasks_done: 2 });
    expect(admin.items.at(-1)).toMatchObject({ started: 6, completed: 1, shipped: 1, tasks_done: 2 });
    expect(admin.items.at(-4)).toMatchObject({ started: 1 });

    const prod = await getOk(t, w.prod.token, `/analytics/throughput?start_date=${beijingDay(-6)}`);
    expect(prod.totals).toEqual({ started: 5, completed: 2, stocked_in: 1, shipped: 1, tasks_done: 1 });
    const after = await getOk(t, w.after.token, '/analytics/throughput');
    expect(after.items).toHaveLength(30);
    expect(after.totals).toEqual({ started: 2, completed: 0, stocked_in: 0, shipped: 0, tasks_done: 1 });
    const empty = await getOk(t, w.empty.token, '/analytics/throughput?granularity=month&start_date=2024-01-01&end_date=2024-12-31');
    expect(empty.items).toHaveLength(12);
    expect(empty.totals).toEqual({ started: 0, completed: 0, stocked_in: 0, shipped: 0, tasks_done: 0 });

    const weekly = await getOk(t, w.admin, '/analytics/throughput?granularity=week&start_date=2024-05-01&end_date=2024-05-31');
    expect(weekly.items.map((item: { period: string }) => item.period)).toEqual(['2024-04-29', '2024-05-06', '2024-05-13', '2024-05-20', '2024-05-27']);
    const narrowed = await getOk(t, w.admin, '/analytics/throughput?model=TX-900');
    expect(narrowed.totals).toEqual({ started: 2, completed: 0, stocked_in: 0, shipped: 0, tasks_done: 1 });
    // a filter never widens the scope
    const widened = await getOk(t, w.prod.token, '/analytics/throughput?lifecycle_phase=AFTER_SALES');
    expect(widened.totals).toEqual({ started: 0, completed: 0, stocked_in: 0, shipped: 0, tasks_done: 0 });
  });

  it('cycle-time measures products completed in the range and tasks by type', async () => {
    const admin = await getOk(t, w.admin, '/analytics/cycle-time');
    expect(admin.products).toMatchObject({ count: 2, max_hours: 48 });
    expect(admin.products.min_hours).toBeLessThan(1);
    expect(admin.by_model).toEqual([{ model: 'TX-200', count: 2, avg_hours: expect.any(Number) }]);
    const byType = Object.fromEntries(admin.tasks_by_type.map((row: { type: string; count: number; avg_logged_hours: number }) => [row.type, [row.count, row.avg_logged_hours]]));
    expect(byType).toEqual({ PRODUCTION: [1, 3.5], INSPECTION: [0, 0], REPAIR: [1, 1], AFTER_SALES: [0, 0] });
    const after = await getOk(t, w.after.token, '/analytics/cycle-time');
    expect(after.products.count).toBe(0);
    expect(after.tasks_by_type.find((row: { type: string }) => row.type === 'REPAIR').count).toBe(1);
    const empty = await getOk(t, w.empty.token, '/analytics/cycle-time');
    expect(empty.products).toEqual({ count: 0, avg_hours: 0, min_hours: 0, max_hours: 0, p50_hours: 0, p90_hours: 0 });
    expect(empty.by_model).toEqual([]);
  });

  it('stage-duration lists every stage with the tasks finished there', async () => {
    const rows = async (token: string) =>
      Object.fromEntries((await getOk(t, token, '/analytics/stage-duration')).items.map((row: { stage: string; tasks: number; total_logged_hours: number }) => [row.stage, [row.tasks, row.total_logged_hours]]));
    expect(await rows(w.admin)).toEqual({ 装配: [1, 3.5], 调试: [0, 0], 老化: [1, 1], 检验: [0, 0], 包装: [0, 0] });
    expect(await rows(w.prod.token)).toEqual({ 装配: [1, 3.5], 调试: [0, 0], 老化: [0, 0], 检验: [0, 0], 包装: [0, 0] });
    expect(await rows(w.empty.token)).toEqual({ 装配: [0, 0], 调试: [0, 0], 老化: [0, 0], 检验: [0, 0], 包装: [0, 0] });
  });

  it('task-status counts tasks through their product', async () => {
    const statusOf = (body: { by_status: { status: string; count: number }[] }) => Object.fromEntries(body.by_status.map((row) => [row.status, row.count]));
    const admin = await getOk(t, w.admin, '/analytics/task-status');
    expect(admin).toMatchObject({ total: 5, overdue: 2, start_date: null, end_date: null });
    expect(statusOf(admin)).toEqual({ TODO: 2, IN_PROGRESS: 1, DONE: 2 });
    expect(admin.by_type.find((row: { type: string }) => row.type === 'REPAIR')).toMatchObject({ total: 1, done: 1 });
    const prod = await getOk(t, w.prod.token, '/analytics/task-status');
    expect(prod).toMatchObject({ total: 3, overdue: 1 });
    expect(statusOf(prod)).toEqual({ TODO: 1, IN_PROGRESS: 1, DONE: 1 });
    expect(await getOk(t, w.empty.token, '/analytics/task-status')).toMatchObject({ total: 0, overdue: 0 });
    const old = await getOk(t, w.admin, '/analytics/task-status?start_date=2020-01-01&end_date=2020-12-31');
    expect(old).toMatchObject({ total: 0, start_date: '2020-01-01', end_date: '2020-12-31' });
  });

  it('after-sales shows AFTER_SALES products and their tasks, zeros for a scope without that phase', async () => {
    const admin = await getOk(t, w.admin, '/analytics/after-sales');
    expect(admin).toMatchObject({ products_total: 2, by_status: [{ status: '生产中', count: 1 }, { status: '售后中', count: 1 }] });
    expect(admin.tasks).toMatchObject({ total: 2, open: 1, done: 1, overdue: 1 });
    expect(admin.by_model).toEqual([{ model: 'TX-900', products: 2, tasks: 2 }]);
    expect(await getOk(t, w.after.token, '/analytics/after-sales')).toEqual(admin);
    const prod = await getOk(t, w.prod.token, '/analytics/after-sales');
    expect(prod).toMatchObject({ products_total: 0, by_status: [], tasks: { total: 0, open: 0, done: 0, overdue: 0, avg_resolution_hours: 0 }, by_model: [] });
  });

  it('by-group lists the groups of the products in scope, ungrouped included', async () => {
    const admin = await getOk(t, w.admin, '/analytics/by-group');
    expect(admin.items).toEqual([
      { group_id: null, group_name: '未分组', products: 6, in_production: 3, completed: 3, open_tasks: 1, done_tasks: 2, hours: 5.5 },
      expect.objectContaining({ group_id: w.prod.groupId, products: 1, in_production: 1, open_tasks: 1, done_tasks: 0 }),
      expect.objectContaining({ group_id: w.after.groupId, products: 1, in_production: 0, open_tasks: 1, hours: 0.5 }),
    ]);
    const prod = await getOk(t, w.prod.token, '/analytics/by-group');
    expect(prod.items.map((row: { group_id: number | null; products: number }) => [row.group_id, row.products])).toEqual([[null, 5], [w.prod.groupId, 1]]);
    expect(await getOk(t, w.empty.token, '/analytics/by-group')).toMatchObject({ items: [] });
  });

  it('filter-options lists only what the caller may see', async () => {
    const admin = await getOk(t, w.admin, '/analytics/filter-options');
    expect(admin.phases.map((option: { value: string }) => option.value)).toEqual(['PRODUCTION', 'AFTER_SALES']);
    expect(admin.models).toEqual(['TX-100', 'TX-200', 'TX-900']);
    expect(ids(admin.groups).sort()).toEqual([w.prod.groupId, w.after.groupId].sort());
    expect(admin.statuses.map((option: { value: string }) => option.value)).toEqual(['生产中', '待仓库收货', '已入库', '已出库', '售后中']);

    const prod = await getOk(t, w.prod.token, '/analytics/filter-options');
    expect(prod.phases).toEqual([{ value: 'PRODUCTION', label: '生产' }]);
    expect(prod.models).toEqual(['TX-100', 'TX-200']);
    expect(ids(prod.groups)).toEqual([w.prod.groupId]);
    expect(prod.statuses.map((option: { value: string }) => option.value)).toEqual(['生产中', '待仓库收货', '已入库', '已出库']);
    expect(prod.stages.map((option: { value: string }) => option.value)).toEqual(['装配', '调试', '包装']);
    expect(prod.task_types.map((option: { value: string }) => option.value)).toEqual(['PRODUCTION']);
    expect(ids(prod.users).sort()).toEqual([t.adminId, w.prod.id].sort());

    expect(await getOk(t, w.empty.token, '/analytics/filter-options')).toEqual({
      phases: [], statuses: [], stages: [], models: [], groups: [], task_types: [], task_statuses: [], users: [],
    });
  });

  it('device-record answers the device’s record in scope and an empty list outside it', async () => {
    const serial = w.products.as1.serial_number;
    const [record] = await getOk(t, w.admin, `/analytics/device-record?sn=${serial.toLowerCase()}`);
    expect(record.product).toMatchObject({ id: w.products.as1.id, serial_number: serial, lifecycle_phase: 'AFTER_SALES' });
    expect(ids(record.tasks)).toEqual([w.tasks.t4.id]);
    expect(record.logs.map((entry: { action: string }) => entry.action)).toEqual(['CREATE', 'PROGRESS']);
    expect(await getOk(t, w.after.token, `/analytics/device-record?sn=${serial}`)).toHaveLength(1);
    expect(await getOk(t, w.prod.token, `/analytics/device-record?sn=${serial}`)).toEqual([]);
    expect(await getOk(t, w.empty.token, `/analytics/device-record?sn=${w.products.a1.serial_number}`)).toEqual([]);
    expect(await getOk(t, w.admin, '/analytics/device-record?sn=NOSUCHSERIAL0000')).toEqual([]);
    const [shipped] = await getOk(t, w.prod.token, `/analytics/device-record?sn=${w.products.h1.serial_number}`);
    expect(shipped.product.status).toBe('已出库');
    expect(shipped.shipped_at).toEqual(expect.any(String));
  });

  it('screen summary agrees with the dashboard cards', async () => {
    for (const token of [w.admin, w.prod.token, w.after.token, w.empty.token]) {
      const summary = await getOk(t, token, '/screen/summary');
      const cards = Object.fromEntries((await getOk(t, token, '/dashboard/cards')).cards.map((card: { card: string; count: number }) => [card.card, card.count]));
      expect(summary.products).toMatchObject({ in_production: cards.in_production, after_sales: cards.after_sales, shipped: cards.shipped });
      expect(summary.tasks.overdue).toBe(cards.overdue_tasks);
      expect(summary.tasks.todo + summary.tasks.in_progress).toBe(cards.open_tasks);
    }
    const admin = await getOk(t, w.admin, '/screen/summary');
    expect(admin.products).toEqual({ total: 8, in_production: 4, awaiting_warehouse: 1, stocked_in: 1, shipped: 1, after_sales: 1 });
    expect(admin.tasks).toEqual({ total: 5, todo: 2, in_progress: 1, done: 2, overdue: 2 });
  });

  it('line-status keeps every stage of the line, zeros included', async () => {
    const prod = await getOk(t, w.prod.token, '/screen/line-status');
    expect(prod.items.map((row: { stage: string }) => row.stage)).toEqual(['装配', '调试', '老化', '检验', '包装']);
    expect(prod.items[0]).toEqual({ stage: '装配', products: 2, tasks_todo: 1, tasks_in_progress: 0, tasks_overdue: 1, tasks_done_today: 1 });
    expect(prod.items[1]).toMatchObject({ stage: '调试', products: 1, tasks_in_progress: 1 });
    expect(prod.items[2]).toEqual({ stage: '老化', products: 0, tasks_todo: 0, tasks_in_progress: 0, tasks_overdue: 0, tasks_done_today: 0 });
    const admin = await getOk(t, w.admin, '/screen/line-status');
    expect(admin.items[2]).toMatchObject({ stage: '老化', products: 1, tasks_done_today: 1 });
    const empty = await getOk(t, w.empty.token, '/screen/line-status');
    expect(empty.items.every((row: Record<string, unknown>) => Object.values(row).filter((value) => typeof value === 'number').every((n) => n === 0))).toBe(true);
  });

  it('today counts today’s Beijing events in scope', async () => {
    const admin = await getOk(t, w.admin, '/screen/today');
    expect(admin).toMatchObject({
      date: beijingDay(), products_started: 6, products_completed: 1, shipped: 1, tasks_created: 5, tasks_done: 2, logs: 12, hours: 6, active_people: 3,
    });
    expect(admin.by_hour).toHaveLength(24);
    expect(admin.by_hour.reduce((sum: number, row: { logs: number }) => sum + row.logs, 0)).toBe(12);
    const prod = await getOk(t, w.prod.token, '/screen/today');
    expect(prod).toMatchObject({ products_started: 4, tasks_created: 3, tasks_done: 1, logs: 7, hours: 4.5, active_people: 2 });
    expect(await getOk(t, w.empty.token, '/screen/today')).toMatchObject({ products_started: 0, tasks_done: 0, logs: 0, hours: 0, active_people: 0 });
  });

  it('ranking orders people by the chosen metric, ties sharing a rank', async () => {
    const admin = await getOk(t, w.admin, '/screen/ranking');
    expect(admin.metric).toBe('tasks_done');
    expect(admin.items.map((row: { rank: number; user_id: number }) => [row.rank, row.user_id]).sort()).toEqual([[1, w.prod.id], [1, w.after.id]].sort());
    const hours = await getOk(t, w.admin, '/screen/ranking?metric=hours');
    expect(hours.items.map((row: { rank: number; user_id: number; hours: number }) => [row.rank, row.user_id, row.hours])).toEqual([
      [1, w.prod.id, 3.5],
      [2, w.after.id, 1.5],
      [3, t.adminId, 1],
    ]);
    const top = await getOk(t, w.admin, '/screen/ranking?metric=logs&limit=1');
    expect(top.items).toEqual([expect.objectContaining({ rank: 1, user_id: t.adminId, logs: 6 })]);
    const prod = await getOk(t, w.prod.token, '/screen/ranking?metric=hours');
    expect(prod.items.map((row: { user_id: number }) => row.user_id)).toEqual([w.prod.id, t.adminId]);
    expect(await getOk(t, w.empty.token, '/screen/ranking')).toMatchObject({ items: [] });
    expect(await getOk(t, w.admin, '/screen/ranking?start_date=2020-01-01&end_date=2020-01-31')).toMatchObject({ items: [] });
  });

  it('alerts list the overdue tasks, total equal to the overdue card', async () => {
    const admin = await getOk(t, w.admin, '/screen/alerts');
    expect(admin.total).toBe(2);
    expect(admin.items.map((row: { task_id: number }) => row.task_id)).toEqual([w.tasks.t1.id, w.tasks.t4.id]);
    expect(admin.items[0]).toMatchObject({ due_date: '2020-01-01', status: 'TODO', assignee_id: w.prod.id, serial_number: w.products.a1.serial_number });
    expect(admin.items[0].days_overdue).toBeGreaterThan(admin.items[1].days_overdue);
    const limited = await getOk(t, w.admin, '/screen/alerts?limit=1');
    expect(limited).toMatchObject({ total: 2 });
    expect(limited.items).toHaveLength(1);
    const prod = await getOk(t, w.prod.token, '/screen/alerts');
    expect(prod.items.map((row: { task_id: number }) => row.task_id)).toEqual([w.tasks.t1.id]);
    expect(await getOk(t, w.empty.token, '/screen/alerts')).toMatchObject({ total: 0, items: [] });

    // finishing an overdue task takes it off the alerts and the card at once
    const finish = await t.request('POST', `/api/v1/tasks/${w.tasks.t1.id}/logs`, { token: w.prod.token, body: { action: 'FINISH' } });
    expect(finish.statusCode).toBe(201);
    expect((await getOk(t, w.prod.token, '/screen/alerts')).total).toBe(0);
    const cards = (await getOk(t, w.prod.token, '/dashboard/cards')).cards;
    expect(cards.find((card: { card: string }) => card.card === 'overdue_tasks').count).toBe(0);
  });

  it('runs the same number of SQL statements per route whatever the amount of data', async () => {
    if (t.service.deps.database.kind !== 'pglite') return; // counted on the embedded engine's one client
    type Query = (...args: unknown[]) => Promise<unknown>;
    const client = (t.service.deps.database.db as unknown as { $client: { query: Query } }).$client;
    const original = client.query;
    let statements = 0;
    client.query = (...args) => {
      statements += 1;
      return original.apply(client, args);
    };
    const statementsPerRoute = async () => {
      const counts: Record<string, number> = {};
      for (const path of [...STATS_ROUTES, `/analytics/device-record?sn=${w.products.a1.serial_number}`]) {
        statements = 0;
        const res = await t.request('GET', `/api/v1${path}`, { token: w.prod.token });
        expect(res.statusCode, path).toBe(200);
        counts[path] = statements;
      }
      return counts;
    };
    try {
      const before = await statementsPerRoute();
      // login and scope resolution included: a handful of statements, never one per row
      expect(Math.max(...Object.values(before))).toBeLessThanOrEqual(8);
      for (let i = 0; i < 6; i++) {
        const product = await createProduct(t, { model: `TX-${300 + i}`, current_stage: ['装配', '调试', '老化', '检验', '包装'][i % 5], group_id: i % 2 ? w.prod.groupId : null });
        const task = await createTask(t, { product_id: product.id, stage: '检验', assignee_id: i % 2 ? w.prod.id : w.after.id, due_date: '2021-06-0' + (i + 1) });
        const logged = await t.request('POST', `/api/v1/tasks/${task.id}/logs`, { token: w.prod.token, body: { action: 'FINISH', hours: i } });
        expect(logged.statusCode).toBe(201);
      }
      expect(await statementsPerRoute()).toEqual(before);
    } finally {
      client.query = original;
    }
  });
});
