import { eq } from 'drizzle-orm';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { businessGroupMembers, products, taskLogs, tasks } from '../src/db/schema/index.js';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { addMembers, createGroup, createProduct, createTask, groupedUser, setGroup } from './scope-fixtures.js';
import { buildStatsWorld, getOk, STATS_ROUTES, type StatsWorld } from './stats-fixtures.js';

/**
 * Conformance of the statistics routes (contract §6 and §8, spec §3 and §4.3, decisions "Tracking
 * statistics"): the routes the OpenAPI document lists, the data scope of every route for every scope
 * rule, counts that agree across routes, Beijing days at midnight, the overdue rule and bad input.
 */

const DAY = 86_400_000;
const beijingDay = (at = Date.now()) => new Date(at + 8 * 3600_000).toISOString().slice(0, 10);
/** 00:00 Beijing of a calendar day as an instant. */
const midnight = (day: string) => new Date(`${day}T00:00:00+08:00`);
const sum = (rows: Record<string, number>[], key: string) => rows.reduce((total, row) => total + row[key]!, 0);
/** The routes answering JSON (the export is an xlsx file). */
const JSON_ROUTES = STATS_ROUTES.filter((path) => !path.endsWith('/export'));

// eslint-disable-next-line @typescript-eslint/no-explicit-any
type Json = any;

/** The body without the instant it was generated at, for comparing two answers. */
function comparable(body: Json): Json {
  if (body && typeof body === 'object' && !Array.isArray(body)) {
    const { generated_at: _generatedAt, ...rest } = body;
    return rest;
  }
  return body;
}

async function writeProduct(t: TestTracking, id: number, values: Partial<typeof products.$inferInsert>) {
  await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) => tx.update(products).set(values).where(eq(products.id, id)));
}

async function writeTask(t: TestTracking, id: number, values: Partial<typeof tasks.$inferInsert>) {
  await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) => tx.update(tasks).set(values).where(eq(tasks.id, id)));
}

async function writeLogsOfTask(t: TestTracking, taskId: number, values: Partial<typeof taskLogs.$inferInsert>) {
  await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) => tx.update(taskLogs).set(values).where(eq(taskLogs.taskId, taskId)));
}

describe('statistics routes in the OpenAPI document', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('lists exactly the 20 statistics routes plus the people-history export, each a documented GET', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).json();
    const statsPaths = Object.keys(doc.paths).filter((path) => /^\/api\/v1\/(dashboard|analytics|screen)(\/|$)/.test(path));
    expect(statsPaths.sort()).toEqual(
      [
        '/api/v1/dashboard/cards',
        '/api/v1/dashboard/cards/{card}/items',
        '/api/v1/dashboard/wip-distribution',
        '/api/v1/dashboard/monthly-production',
        '/api/v1/dashboard/reminders',
        '/api/v1/dashboard/people-history',
        '/api/v1/dashboard/people-history/export',
        '/api/v1/dashboard/recent-activity',
        '/api/v1/analytics/throughput',
        '/api/v1/analytics/cycle-time',
        '/api/v1/analytics/stage-duration',
        '/api/v1/analytics/task-status',
        '/api/v1/analytics/after-sales',
        '/api/v1/analytics/by-group',
        '/api/v1/analytics/filter-options',
        '/api/v1/analytics/device-record',
        '/api/v1/screen/summary',
        '/api/v1/screen/line-status',
        '/api/v1/screen/today',
        '/api/v1/screen/ranking',
        '/api/v1/screen/alerts',
      ].sort(),
    );
    expect(statsPaths.filter((path) => !path.endsWith('/export'))).toHaveLength(20);
    for (const path of statsPaths) {
      expect(Object.keys(doc.paths[path]), path).toEqual(['get']);
      const operation = doc.paths[path].get;
      expect(operation.summary, path).toMatch(/\S/);
      expect(operation.description, path).toMatch(/\S/);
      const ok = operation.responses['200'];
      expect(ok?.content, path).toBeDefined();
      const schema = (Object.values(ok.content)[0] as { schema?: Json }).schema;
      expect(schema, path).toBeDefined();
      for (const status of ['401', '422']) {
        expect(JSON.stringify(operation.responses[status]), `${path} ${status}`).toMatch(/msg/);
      }
    }
  });
});

describe('statistics under every data-scope rule (spec §3, DATA_SCOPE_UNGROUPED=NONE)', () => {
  let t: TestTracking;
  let fresh: TestTracking;
  let w: StatsWorld;
  const tokens: Record<string, string> = {};

  beforeAll(async () => {
    t = await buildTestTracking({ config: { dataScopeUngrouped: 'NONE' } });
    fresh = await buildTestTracking({ config: { dataScopeUngrouped: 'NONE' } });
    w = await buildStatsWorld(t);
    tokens.ungroupedOperator = (await t.user('OPERATOR')).token;
    tokens.ungroupedSupervisor = (await t.user('SUPERVISOR')).token;
    tokens.groupedSupervisor = (await groupedUser(t, 'SUPERVISOR', ['PRODUCTION'])).token;
    // a SUPER_ADMIN stays unrestricted even inside a group limited to one phase
    const groupedAdmin = await t.user('SUPER_ADMIN');
    const afterGroup = await createGroup(t, { phases: ['AFTER_SALES'] });
    // (the API refuses a SUPER_ADMIN as a member, so the row is written directly)
    await t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) =>
      tx.insert(businessGroupMembers).values({ groupId: afterGroup.id, userId: groupedAdmin.id }),
    );
    tokens.groupedAdmin = groupedAdmin.token;
    // deactivating the only group sends its member back to the ungrouped rule (NONE: nothing)
    const deactivated = await groupedUser(t, 'ENGINEER', ['PRODUCTION']);
    await setGroup(t, deactivated.groupId, { active: false });
    tokens.deactivated = deactivated.token;
    // a sub-group without phases of its own inherits its parent's
    const parent = await createGroup(t, { phases: ['AFTER_SALES'] });
    const child = await createGroup(t, { parent_id: parent.id });
    const inheriting = await t.user('OPERATOR');
    await addMembers(t, child.id, [inheriting.id]);
    tokens.inheriting = inheriting.token;
  });
  afterAll(async () => {
    await t.close();
    await fresh.close();
  });

  it('shows an empty scope what an empty database shows: zeros and empty lists on every route', async () => {
    for (const [who, token] of [['grouped, no phases', w.empty.token], ['ungrouped OPERATOR', tokens.ungroupedOperator!], ['deactivated group', tokens.deactivated!]] as const) {
      for (const path of JSON_ROUTES) {
        if (path === '/dashboard/reminders') continue; // the caller's own, not scope-filtered
        const seen = comparable(await getOk(t, token, path));
        const nothing = comparable(await getOk(fresh, fresh.adminToken, path));
        if (path === '/analytics/filter-options') {
          expect(seen, `${who} ${path}`).toEqual({ ...nothing, phases: [] });
        } else {
          expect(seen, `${who} ${path}`).toEqual(nothing);
        }
      }
      const device = await getOk(t, token, `/analytics/device-record?sn=${w.products.a1.serial_number}`);
      expect(device, who).toEqual([]);
      const exported = await t.request('GET', '/api/v1/dashboard/people-history/export', { token });
      expect(exported.statusCode, who).toBe(200);
    }
  });

  it('shows an ungrouped SUPERVISOR everything, like a SUPER_ADMIN (also one placed in a group)', async () => {
    for (const path of JSON_ROUTES) {
      if (path === '/dashboard/reminders') continue;
      const everything = comparable(await getOk(t, w.admin, path));
      expect(comparable(await getOk(t, tokens.ungroupedSupervisor!, path)), path).toEqual(everything);
      expect(comparable(await getOk(t, tokens.groupedAdmin!, path)), path).toEqual(everything);
    }
  });

  it('limits a grouped SUPERVISOR to the group’s phases, and a sub-group member to the inherited ones', async () => {
    const production = await getOk(t, tokens.groupedSupervisor!, '/screen/summary');
    expect(production.products).toMatchObject({ total: 6, after_sales: 0 });
    expect(production.tasks).toMatchObject({ total: 3 });
    const inherited = await getOk(t, tokens.inheriting!, '/screen/summary');
    expect(inherited.products).toMatchObject({ total: 2, after_sales: 1, in_production: 1 });
    expect(inherited.tasks).toMatchObject({ total: 2, overdue: 1 });
    expect(await getOk(t, tokens.inheriting!, `/analytics/device-record?sn=${w.products.a1.serial_number}`)).toEqual([]);
    expect(await getOk(t, tokens.inheriting!, `/analytics/device-record?sn=${w.products.as1.serial_number.toLowerCase()}`)).toHaveLength(1);
    for (const path of JSON_ROUTES) {
      if (path === '/dashboard/reminders') continue;
      // the PRODUCTION supervisor sees what the PRODUCTION operator of the fixture sees
      expect(comparable(await getOk(t, tokens.groupedSupervisor!, path)), path).toEqual(comparable(await getOk(t, w.prod.token, path)));
    }
  });
});

describe('statistics that must agree with each other', () => {
  let t: TestTracking;
  let w: StatsWorld;
  beforeAll(async () => {
    t = await buildTestTracking();
    w = await buildStatsWorld(t);
    // more rows than one page of a card, so the drill-down is paged
    for (let i = 0; i < 4; i++) await createProduct(t, { model: 'TX-100', current_stage: '检验' });
  });
  afterAll(() => t.close());

  it('gives every card a drill-down whose rows, paged to the end, number exactly the card’s count', async () => {
    for (const token of [w.admin, w.prod.token, w.after.token, w.empty.token]) {
      const { cards } = await getOk(t, token, '/dashboard/cards');
      for (const card of cards) {
        const seen = new Set<number>();
        for (let page = 1; ; page++) {
          const body = await getOk(t, token, `/dashboard/cards/${card.card}/items?limit=2&page=${page}`);
          expect(body.total, card.card).toBe(card.count);
          for (const item of body.items) seen.add(item.id);
          if (body.items.length < 2) break;
        }
        expect(seen.size, card.card).toBe(card.count);
      }
    }
  });

  it('keeps totals equal to the sums of their breakdowns and to the matching cards', async () => {
    for (const token of [w.admin, w.prod.token, w.after.token, w.empty.token]) {
      const cards = Object.fromEntries((await getOk(t, token, '/dashboard/cards')).cards.map((card: Json) => [card.card, card.count]));
      const summary = await getOk(t, token, '/screen/summary');
      expect(summary.products).toMatchObject({
        in_production: cards.in_production,
        awaiting_warehouse: cards.awaiting_warehouse,
        stocked_in: cards.stocked_in,
        shipped: cards.shipped,
        after_sales: cards.after_sales,
        total: cards.in_production + cards.awaiting_warehouse + cards.stocked_in + cards.shipped + cards.after_sales,
      });
      expect(summary.tasks.total).toBe(summary.tasks.todo + summary.tasks.in_progress + summary.tasks.done);
      expect(summary.tasks.todo + summary.tasks.in_progress).toBe(cards.open_tasks);
      expect(summary.tasks.overdue).toBe(cards.overdue_tasks);

      const wip = await getOk(t, token, '/dashboard/wip-distribution');
      expect(wip.total).toBe(sum(wip.items, 'count'));
      expect(wip.total).toBe(cards.in_production);
      expect(wip.items.every((item: Json) => item.count > 0)).toBe(true);
      const line = await getOk(t, token, '/screen/line-status');
      expect(line.items).toHaveLength(5);
      expect(sum(line.items, 'products')).toBe(cards.in_production);

      const alerts = await getOk(t, token, '/screen/alerts');
      expect(alerts.total).toBe(cards.overdue_tasks);
      const status = await getOk(t, token, '/analytics/task-status');
      expect(status.total).toBe(summary.tasks.total);
      expect(status.overdue).toBe(cards.overdue_tasks);
      expect(sum(status.by_status, 'count')).toBe(status.total);
      expect(sum(status.by_type, 'total')).toBe(status.total);
      for (const row of status.by_type) expect(row.todo + row.in_progress + row.done).toBe(row.total);

      const afterSales = await getOk(t, token, '/analytics/after-sales');
      expect(sum(afterSales.by_status, 'count')).toBe(afterSales.products_total);
      expect(sum(afterSales.by_model, 'products')).toBe(afterSales.products_total);
      expect(sum(afterSales.by_model, 'tasks')).toBe(afterSales.tasks.total);
      expect(afterSales.tasks.open + afterSales.tasks.done).toBe(afterSales.tasks.total);

      const byGroup = await getOk(t, token, '/analytics/by-group');
      expect(sum(byGroup.items, 'products')).toBe(summary.products.total);
      expect(sum(byGroup.items, 'open_tasks')).toBe(cards.open_tasks);
      expect(sum(byGroup.items, 'done_tasks')).toBe(summary.tasks.done);

      const month = await getOk(t, token, `/analytics/throughput?granularity=month&start_date=${beijingDay().slice(0, 8)}01`);
      expect(month.items.at(-1).tasks_done).toBe(cards.done_this_month);
      const throughput = await getOk(t, token, '/analytics/throughput');
      for (const key of ['started', 'completed', 'stocked_in', 'shipped', 'tasks_done']) expect(throughput.totals[key], key).toBe(sum(throughput.items, key));
      const monthly = await getOk(t, token, '/dashboard/monthly-production');
      expect(monthly.total_started).toBe(sum(monthly.items, 'started'));
      expect(monthly.total_completed).toBe(sum(monthly.items, 'completed'));

      const history = await getOk(t, token, '/dashboard/people-history?limit=200');
      expect(history.items).toHaveLength(history.total);
      expect(sum(history.people, 'logs')).toBe(history.total);

      const today = await getOk(t, token, '/screen/today');
      expect(sum(today.by_hour, 'logs')).toBe(today.logs);
      expect(sum(today.by_hour, 'tasks_done')).toBe(today.tasks_done);
    }
  });

  it('adds up the hourly finished tasks to the day’s tasks_done, also after a task is reopened or finished twice', async () => {
    const product = await createProduct(t, { model: 'TX-100' });
    const reopened = await createTask(t, { product_id: product.id, title: 'reopened' });
    const twice = await createTask(t, { product_id: product.id, title: 'finished twice' });
    const post = async (taskId: number, action: string) => {
      const res = await t.request('POST', `/api/v1/tasks/${taskId}/logs`, { token: t.adminToken, body: { action } });
      expect(res.statusCode, res.body).toBe(201);
    };
    await post(reopened.id, 'FINISH');
    await post(reopened.id, 'START'); // DONE → IN_PROGRESS: not done any more
    await post(twice.id, 'FINISH');
    await post(twice.id, 'START');
    await post(twice.id, 'FINISH');
    const today = await getOk(t, t.adminToken, '/screen/today');
    expect(sum(today.by_hour, 'tasks_done')).toBe(today.tasks_done);
    expect(sum(today.by_hour, 'logs')).toBe(today.logs);
  });
});

describe('Beijing days at midnight', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('buckets products by the Beijing day, Monday week and month of their instant', async () => {
    const before = await createProduct(t, { model: 'TZ-1' });
    const after = await createProduct(t, { model: 'TZ-1' });
    const april = await createProduct(t, { model: 'TZ-1' });
    await writeProduct(t, before.id, { createdAt: new Date('2024-03-03T15:59:59.999Z') }); // Sunday 23:59:59.999 Beijing
    await writeProduct(t, after.id, { createdAt: new Date('2024-03-03T16:00:00.000Z') }); // Monday 00:00 Beijing
    await writeProduct(t, april.id, { createdAt: new Date('2024-03-31T16:00:00.000Z') }); // 1 April 00:00 Beijing
    const started = async (granularity: string, range = 'start_date=2024-03-03&end_date=2024-04-01') =>
      (await getOk(t, t.adminToken, `/analytics/throughput?model=TZ-1&granularity=${granularity}&${range}`)).items
        .filter((item: Json) => item.started > 0)
        .map((item: Json) => [item.period, item.started]);
    expect(await started('day')).toEqual([['2024-03-03', 1], ['2024-03-04', 1], ['2024-04-01', 1]]);
    expect(await started('week')).toEqual([['2024-02-26', 1], ['2024-03-04', 1], ['2024-04-01', 1]]);
    expect(await started('month')).toEqual([['2024-03-01', 2], ['2024-04-01', 1]]);
    // the end day is included whole, the day after it is not
    expect(await started('day', 'start_date=2024-03-02&end_date=2024-03-03')).toEqual([['2024-03-03', 1]]);
    expect(await started('day', 'start_date=2024-03-04&end_date=2024-03-31')).toEqual([['2024-03-04', 1]]);
    const byGroup = await getOk(t, t.adminToken, '/analytics/by-group?model=TZ-1&start_date=2024-03-04&end_date=2024-03-31');
    expect(byGroup.items).toEqual([expect.objectContaining({ group_id: null, products: 1 })]);
  });

  it('counts the month of production by the Beijing month, at the first instant of the month', async () => {
    const thisMonth = `${beijingDay().slice(0, 7)}-01`;
    const lastOfPrevious = await createProduct(t, { model: 'TZ-2' });
    const firstOfThis = await createProduct(t, { model: 'TZ-2' });
    const start = midnight(thisMonth).getTime();
    await writeProduct(t, lastOfPrevious.id, { createdAt: new Date(start - 1) });
    await writeProduct(t, firstOfThis.id, { createdAt: new Date(start) });
    const monthly = await getOk(t, t.adminToken, '/dashboard/monthly-production?months=2');
    const previousMonth = beijingDay(start - DAY).slice(0, 7);
    // the products of the other tests in this file were created in 2024 or today
    const startedIn = (month: string) => monthly.items.find((item: Json) => item.month === month).started;
    expect(monthly.items.map((item: Json) => item.month)).toEqual([previousMonth, thisMonth.slice(0, 7)]);
    expect(startedIn(previousMonth)).toBe(1);
    expect(startedIn(thisMonth.slice(0, 7))).toBeGreaterThanOrEqual(1);
  });

  it('takes the people history and today’s screen by Beijing day, midnight belonging to the new day', async () => {
    const product = await createProduct(t, { model: 'TZ-3' });
    const late = await createTask(t, { product_id: product.id, title: 'late' });
    const early = await createTask(t, { product_id: product.id, title: 'early' });
    const today = beijingDay();
    const startOfToday = midnight(today).getTime();
    await writeLogsOfTask(t, late.id, { createdAt: new Date(startOfToday - 1) });
    await writeLogsOfTask(t, early.id, { createdAt: new Date(startOfToday) });
    const yesterday = beijingDay(startOfToday - 1);
    const taskIds = async (range: string) =>
      (await getOk(t, t.adminToken, `/dashboard/people-history?${range}&limit=200`)).items
        .map((item: Json) => item.task_id)
        .filter((id: number) => id === late.id || id === early.id);
    expect(await taskIds(`start_date=${yesterday}&end_date=${yesterday}`)).toEqual([late.id]);
    expect(await taskIds(`start_date=${today}&end_date=${today}`)).toEqual([early.id]);
    const screen = await getOk(t, t.adminToken, '/screen/today');
    expect(screen.date).toBe(today);
    expect(screen.by_hour[0].logs).toBeGreaterThanOrEqual(1);
    const all = await getOk(t, t.adminToken, `/dashboard/people-history?start_date=${today}&end_date=${today}&limit=200`);
    expect(screen.logs).toBe(all.total);
  });
});

describe('the overdue rule (due date before today in Beijing, not DONE)', () => {
  let t: TestTracking;
  let ids: Record<'dueYesterday' | 'dueToday' | 'doneLate' | 'noDue' | 'inProgressLate', number>;

  beforeAll(async () => {
    t = await buildTestTracking();
    const product = await createProduct(t, { model: 'OD-1' });
    const make = async (title: string, due: string | null) => (await createTask(t, { product_id: product.id, title, ...(due ? { due_date: due } : {}) })).id;
    ids = {
      dueYesterday: await make('due 2024-03-02', '2024-03-02'),
      dueToday: await make('due 2024-03-03', '2024-03-03'),
      doneLate: await make('done, due 2024-03-01', '2024-03-01'),
      noDue: await make('no due date', null),
      inProgressLate: await make('in progress, due 2024-03-01', '2024-03-01'),
    };
    await writeTask(t, ids.doneLate, { status: 'DONE', startedAt: new Date('2024-03-01T01:00:00Z'), finishedAt: new Date('2024-03-01T02:00:00Z') });
    await writeTask(t, ids.inProgressLate, { status: 'IN_PROGRESS', startedAt: new Date('2024-03-01T01:00:00Z') });
  });
  afterEach(() => {
    vi.useRealTimers();
  });
  afterAll(() => t.close());

  /** Logs in and reads the overdue numbers at that instant (statistics count at the request's time). */
  async function overdueAt(instant: string) {
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(instant));
    const login = await t.request('POST', '/api/v1/auth/login', { body: { username: 'admin', password: 'admin-pass-123' } });
    expect(login.statusCode, login.body).toBe(200);
    const token = login.json().token as string;
    const cards = await getOk(t, token, '/dashboard/cards');
    const alerts = await getOk(t, token, '/screen/alerts');
    const items = await getOk(t, token, '/dashboard/cards/overdue_tasks/items');
    const summary = await getOk(t, token, '/screen/summary');
    const status = await getOk(t, token, '/analytics/task-status');
    const card = cards.cards.find((row: Json) => row.card === 'overdue_tasks').count;
    expect(alerts.total).toBe(card);
    expect(items.total).toBe(card);
    expect(summary.tasks.overdue).toBe(card);
    expect(status.overdue).toBe(card);
    expect(alerts.items.map((row: Json) => row.task_id)).toEqual(items.items.map((row: Json) => row.id));
    return { today: cards.today, ids: alerts.items.map((row: Json) => row.task_id), days: alerts.items.map((row: Json) => row.days_overdue) };
  }

  it('does not count a task due today, counts it from Beijing midnight on, and never a DONE one or one without a due date', async () => {
    // 2024-03-02 23:59:59.999 Beijing
    expect(await overdueAt('2024-03-02T15:59:59.999Z')).toEqual({ today: '2024-03-02', ids: [ids.inProgressLate], days: [1] });
    // 2024-03-03 00:00 Beijing (still 2 March in UTC)
    expect(await overdueAt('2024-03-02T16:00:00.000Z')).toEqual({ today: '2024-03-03', ids: [ids.inProgressLate, ids.dueYesterday], days: [2, 1] });
    // 2024-03-04 00:00 Beijing: the task due on the 3rd is overdue now
    expect(await overdueAt('2024-03-03T16:00:00.000Z')).toEqual({
      today: '2024-03-04',
      ids: [ids.inProgressLate, ids.dueYesterday, ids.dueToday],
      days: [3, 2, 1],
    });
  });
});

describe('bad input on the statistics routes', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking();
  });
  afterAll(() => t.close());

  it('answers 401 with msg and code without a login, on every route', async () => {
    for (const path of [...STATS_ROUTES, '/dashboard/cards/overdue_tasks/items']) {
      const res = await t.request('GET', `/api/v1${path}`);
      expect(res.statusCode, path).toBe(401);
      expect(res.json(), path).toMatchObject({ msg: expect.any(String), code: 'UNAUTHENTICATED' });
    }
  });

  it('answers 422 with msg, code and the field for a bad parameter', async () => {
    const bad: [string, string][] = [
      ['/dashboard/cards/everything/items', 'card'],
      ['/dashboard/cards/open_tasks/items?page=0', 'page'],
      ['/dashboard/cards/open_tasks/items?limit=abc', 'limit'],
      ['/dashboard/monthly-production?months=0', 'months'],
      ['/dashboard/monthly-production?months=37', 'months'],
      ['/dashboard/reminders?limit=0', 'limit'],
      ['/dashboard/people-history?user_id=abc', 'user_id'],
      ['/dashboard/people-history?action=DELETE', 'action'],
      ['/dashboard/people-history?start_date=2024-02-30', 'start_date'],
      ['/dashboard/people-history?start_date=2024-01-02&end_date=2024-01-01', 'end_date'],
      ['/dashboard/people-history/export?start_date=2023-01-01&end_date=2024-01-02', 'start_date'],
      ['/dashboard/recent-activity?limit=-5', 'limit'],
      ['/analytics/throughput?end_date=2024-1-1', 'end_date'],
      ['/analytics/throughput?granularity=year', 'granularity'],
      ['/analytics/throughput?group_id=-1', 'group_id'],
      ['/analytics/cycle-time?lifecycle_phase=SCRAPPED', 'lifecycle_phase'],
      ['/analytics/stage-duration?start_date=2020-01-01&end_date=2023-01-02', 'start_date'],
      ['/analytics/task-status?end_date=2024-02-30', 'end_date'],
      ['/analytics/after-sales?group_id=x', 'group_id'],
      ['/analytics/by-group?start_date=yesterday', 'start_date'],
      ['/analytics/device-record', 'sn'],
      ['/analytics/device-record?sn=A%20B', 'sn'],
      ['/screen/ranking?metric=speed', 'metric'],
      ['/screen/ranking?start_date=2024-01-01&end_date=2025-01-01', 'start_date'],
      ['/screen/alerts?limit=0', 'limit'],
    ];
    for (const [path, field] of bad) {
      const res = await t.request('GET', `/api/v1${path}`, { token: t.adminToken });
      expect(res.statusCode, `${path}: ${res.body}`).toBe(422);
      expect(res.json(), path).toMatchObject({ msg: expect.stringMatching(/\S/), code: 'VALIDATION_FAILED', field });
    }
  });
});
