import ExcelJS from 'exceljs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { buildStatsWorld, getOk, type StatsWorld } from './stats-fixtures.js';

const CARDS = ['in_production', 'awaiting_warehouse', 'stocked_in', 'shipped', 'after_sales', 'open_tasks', 'overdue_tasks', 'done_this_month'];
const beijingMonth = (at: Date) => new Date(at.getTime() + 8 * 3600_000).toISOString().slice(0, 7);

describe('dashboard statistics', () => {
  let t: TestTracking;
  let w: StatsWorld;
  let viewers: { name: string; token: string }[];

  beforeAll(async () => {
    t = await buildTestTracking();
    w = await buildStatsWorld(t);
    viewers = [
      { name: 'admin', token: w.admin },
      { name: 'prod', token: w.prod.token },
      { name: 'after', token: w.after.token },
      { name: 'empty', token: w.empty.token },
    ];
  });
  afterAll(() => t.close());

  const cardsOf = async (token: string) => {
    const body = await getOk(t, token, '/dashboard/cards');
    return Object.fromEntries(body.cards.map((card: { card: string; count: number }) => [card.card, card.count]));
  };

  it('counts cards inside each caller’s scope: products by their phase, tasks through their product', async () => {
    expect(await cardsOf(w.admin)).toEqual({
      in_production: 4, awaiting_warehouse: 1, stocked_in: 1, shipped: 1, after_sales: 1, open_tasks: 3, overdue_tasks: 2, done_this_month: 2,
    });
    expect(await cardsOf(w.prod.token)).toEqual({
      in_production: 3, awaiting_warehouse: 1, stocked_in: 1, shipped: 1, after_sales: 0, open_tasks: 2, overdue_tasks: 1, done_this_month: 1,
    });
    expect(await cardsOf(w.after.token)).toEqual({
      in_production: 1, awaiting_warehouse: 0, stocked_in: 0, shipped: 0, after_sales: 1, open_tasks: 1, overdue_tasks: 1, done_this_month: 1,
    });
    expect(Object.values(await cardsOf(w.empty.token))).toEqual(CARDS.map(() => 0));
  });

  it('describes every card with its drill-down path', async () => {
    const body = await getOk(t, w.admin, '/dashboard/cards');
    expect(body.cards.map((card: { card: string }) => card.card)).toEqual(CARDS);
    for (const card of body.cards) {
      expect(card).toMatchObject({ label: expect.any(String), kind: expect.stringMatching(/^(product|task)$/) });
      expect(card.items_path).toBe(`/api/v1/dashboard/cards/${card.card}/items`);
    }
    expect(body.today).toMatch(/^\d{4}-\d{2}-\d{2}$/);
  });

  it('gives every card a drill-down whose total equals the card, for every scope', async () => {
    for (const viewer of viewers) {
      const cards = await cardsOf(viewer.token);
      for (const card of CARDS) {
        const page = await getOk(t, viewer.token, `/dashboard/cards/${card}/items?limit=200`);
        expect(page.total, `${viewer.name} ${card}`).toBe(cards[card]);
        expect(page.items, `${viewer.name} ${card}`).toHaveLength(cards[card]);
        expect(page.card).toBe(card);
      }
    }
  });

  it('lists the rows behind a card: products for product cards, tasks for task cards', async () => {
    const overdue = await getOk(t, w.admin, '/dashboard/cards/overdue_tasks/items');
    expect(overdue.kind).toBe('task');
    expect(overdue.items.map((task: { id: number }) => task.id)).toEqual([w.tasks.t1.id, w.tasks.t4.id]);
    const prodOverdue = await getOk(t, w.prod.token, '/dashboard/cards/overdue_tasks/items');
    expect(prodOverdue.items.map((task: { id: number }) => task.id)).toEqual([w.tasks.t1.id]);
    const afterSales = await getOk(t, w.admin, '/dashboard/cards/after_sales/items');
    expect(afterSales.kind).toBe('product');
    expect(afterSales.items.map((product: { serial_number: string }) => product.serial_number)).toEqual([w.products.as1.serial_number]);
    const paged = await getOk(t, w.admin, '/dashboard/cards/in_production/items?limit=3&page=2');
    expect(paged).toMatchObject({ total: 4, page: 2, limit: 3 });
    expect(paged.items).toHaveLength(1);
  });

  it('answers 422 for an unknown card', async () => {
    const res = await t.request('GET', '/api/v1/dashboard/cards/everything/items', { token: w.admin });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String) });
  });

  it('keeps WIP total equal to the sum of its items and drops only the stages that are zero for the scope', async () => {
    const sum = (body: { items: { count: number }[] }) => body.items.reduce((total, item) => total + item.count, 0);
    const admin = await getOk(t, w.admin, '/dashboard/wip-distribution');
    expect(admin).toEqual({ total: 4, items: [{ stage: '装配', count: 2 }, { stage: '调试', count: 1 }, { stage: '老化', count: 1 }] });
    const prod = await getOk(t, w.prod.token, '/dashboard/wip-distribution');
    expect(prod).toEqual({ total: 3, items: [{ stage: '装配', count: 2 }, { stage: '调试', count: 1 }] });
    const after = await getOk(t, w.after.token, '/dashboard/wip-distribution');
    expect(after).toEqual({ total: 1, items: [{ stage: '老化', count: 1 }] });
    expect(await getOk(t, w.empty.token, '/dashboard/wip-distribution')).toEqual({ total: 0, items: [] });
    for (const body of [admin, prod, after]) expect(body.total).toBe(sum(body));
    // the WIP total is the in_production card
    expect(admin.total).toBe((await cardsOf(w.admin)).in_production);
  });

  it('counts monthly production with the plain product filter, one entry per month', async () => {
    const now = new Date();
    const tally = (dates: Date[]) => dates.reduce<Record<string, number>>((acc, at) => ({ ...acc, [beijingMonth(at)]: (acc[beijingMonth(at)] ?? 0) + 1 }), {});
    const started = tally([...Array(6).fill(now), w.backdated.h1Created, w.backdated.s1Created]);
    const completed = tally([now, w.backdated.h1Completed, w.backdated.s1Completed]);
    const admin = await getOk(t, w.admin, '/dashboard/monthly-production');
    expect(admin.months).toBe(12);
    expect(admin.items).toHaveLength(12);
    expect(admin.items.at(-1).month).toBe(beijingMonth(now));
    for (const item of admin.items) {
      expect(item, item.month).toEqual({ month: item.month, started: started[item.month] ?? 0, completed: completed[item.month] ?? 0 });
    }
    expect(admin).toMatchObject({ total_started: 8, total_completed: 3 });
    const prod = await getOk(t, w.prod.token, '/dashboard/monthly-production');
    expect(prod).toMatchObject({ total_started: 6, total_completed: 3 });
    const after = await getOk(t, w.after.token, '/dashboard/monthly-production');
    expect(after).toMatchObject({ total_started: 2, total_completed: 0 });
    const empty = await getOk(t, w.empty.token, '/dashboard/monthly-production?months=3');
    expect(empty).toMatchObject({ months: 3, total_started: 0, total_completed: 0 });
    expect(empty.items.map((item: { started: number; completed: number }) => item.started + item.completed)).toEqual([0, 0, 0]);
    const short = await getOk(t, w.admin, '/dashboard/monthly-production?months=1');
    expect(short.items).toEqual([{ month: beijingMonth(now), started: started[beijingMonth(now)], completed: completed[beijingMonth(now)] }]);
  });

  it('shows the caller’s own unread reminders, even for tasks outside the scope', async () => {
    const prod = await getOk(t, w.prod.token, '/dashboard/reminders');
    expect(prod.unread).toBe(3);
    expect(prod.items.map((item: { task_id: number }) => item.task_id)).toEqual([w.tasks.t4.id, w.tasks.t2.id, w.tasks.t1.id]);
    expect(prod.items[0]).toMatchObject({ user_id: w.prod.id, read_at: null, task_title: '售后 as1' });
    const empty = await getOk(t, w.empty.token, '/dashboard/reminders');
    expect(empty.unread).toBe(1);
    expect(empty.items[0].task_id).toBe(w.tasks.t5.id);
    expect(await getOk(t, w.after.token, '/dashboard/reminders')).toEqual({ unread: 0, items: [] });

    const read = await t.request('POST', `/api/v1/notifications/${prod.items[0].id}/read`, { token: w.prod.token });
    expect(read.statusCode).toBe(200);
    const afterRead = await getOk(t, w.prod.token, '/dashboard/reminders?limit=1');
    expect(afterRead.unread).toBe(2);
    expect(afterRead.items.map((item: { task_id: number }) => item.task_id)).toEqual([w.tasks.t2.id]);
  });

  it('lists the people history in scope with a per-person summary', async () => {
    const admin = await getOk(t, w.admin, '/dashboard/people-history?limit=200');
    expect(admin.total).toBe(12);
    expect(admin.items).toHaveLength(12);
    const times = admin.items.map((item: { created_at: string }) => item.created_at);
    expect(times).toEqual([...times].sort().reverse());
    const person = (body: { people: { user_id: number }[] }, id: number) => body.people.find((row) => row.user_id === id);
    expect(person(admin, w.prod.id)).toMatchObject({ logs: 3, tasks: 2, tasks_finished: 1, hours: 3.5 });
    expect(person(admin, w.after.id)).toMatchObject({ logs: 3, tasks: 2, tasks_finished: 1, hours: 1.5 });
    expect(admin.people[0].user_id).toBe(w.prod.id); // most hours first

    const prod = await getOk(t, w.prod.token, '/dashboard/people-history?limit=200');
    expect(prod.total).toBe(7);
    expect(prod.items.every((item: { lifecycle_phase: string }) => item.lifecycle_phase === 'PRODUCTION')).toBe(true);
    expect(person(prod, w.after.id)).toBeUndefined();
    const after = await getOk(t, w.after.token, '/dashboard/people-history');
    expect(after.total).toBe(5);
    expect(await getOk(t, w.empty.token, '/dashboard/people-history')).toMatchObject({ total: 0, items: [], people: [] });

    const mine = await getOk(t, w.admin, `/dashboard/people-history?user_id=${w.prod.id}&action=FINISH`);
    expect(mine.items.map((item: { task_id: number; hours: number }) => [item.task_id, item.hours])).toEqual([[w.tasks.t2.id, 1.5]]);
    const paged = await getOk(t, w.admin, '/dashboard/people-history?limit=5&page=3');
    expect(paged).toMatchObject({ total: 12, page: 3, limit: 5 });
    expect(paged.items).toHaveLength(2);
  });

  it('filters the people history by Beijing days, end day included', async () => {
    const today = new Date(Date.now() + 8 * 3600_000).toISOString().slice(0, 10);
    const todayOnly = await getOk(t, w.admin, `/dashboard/people-history?start_date=${today}&end_date=${today}`);
    expect(todayOnly).toMatchObject({ start_date: today, end_date: today, total: 12 });
    const old = await getOk(t, w.admin, '/dashboard/people-history?start_date=2020-01-01&end_date=2020-01-31');
    expect(old).toMatchObject({ total: 0, items: [], people: [] });
    const defaults = await getOk(t, w.admin, '/dashboard/people-history');
    expect(defaults.end_date).toBe(today);
  });

  it('exports the people history as xlsx with the same scope, Beijing date cells and text that never runs', async () => {
    const workbookOf = async (token: string, query = '') => {
      const res = await t.request('GET', `/api/v1/dashboard/people-history/export${query}`, { token });
      expect(res.statusCode, res.body).toBe(200);
      expect(res.headers['content-type']).toContain('spreadsheetml');
      expect(res.headers['content-disposition']).toContain('attachment');
      const workbook = new ExcelJS.Workbook();
      await workbook.xlsx.load(res.rawPayload as unknown as ArrayBuffer);
      return workbook;
    };
    const rowsOf = (workbook: ExcelJS.Workbook, sheet: string) => {
      const rows: unknown[][] = [];
      workbook.getWorksheet(sheet)!.eachRow((row) => rows.push((row.values as unknown[]).slice(1)));
      return rows;
    };

    const admin = await workbookOf(w.admin);
    const adminRecords = rowsOf(admin, '工作记录');
    expect(adminRecords[0]).toEqual(['时间（北京）', '人员', '动作', '任务', '产品序列号', '型号', '阶段', '工时', '内容']);
    expect(adminRecords).toHaveLength(1 + 12);
    expect(adminRecords.some((row) => row[8] === "'=1+1")).toBe(true); // neutralised (contract §7)
    expect(rowsOf(admin, '人员汇总')).toHaveLength(1 + 3);
    const records = admin.getWorksheet('工作记录')!;
    expect(records.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 });
    expect(records.autoFilter).toBe('A1:I13');
    const newest = (await getOk(t, w.admin, '/dashboard/people-history?limit=1')).items[0];
    const time = records.getRow(2).getCell(1);
    expect(time.type).toBe(ExcelJS.ValueType.Date);
    expect(time.value).toEqual(new Date(Math.floor(Date.parse(newest.created_at) / 1000) * 1000 + 8 * 3600_000));
    expect(records.getRow(2).getCell(8).type).toBe(ExcelJS.ValueType.Number);
    const formula = records.getColumn(9).values.findIndex((value) => value === "'=1+1");
    expect(formula).toBeGreaterThan(1);
    expect(records.getRow(formula).getCell(9).formula).toBeUndefined();
    expect(admin.getWorksheet('人员汇总')!.getRow(2).getCell(6).type).toBe(ExcelJS.ValueType.Date);

    const prodRecords = rowsOf(await workbookOf(w.prod.token), '工作记录');
    expect(prodRecords).toHaveLength(1 + 7);
    expect(prodRecords.slice(1).every((row) => row[6] === '生产')).toBe(true);
    const emptyBook = await workbookOf(w.empty.token);
    expect(rowsOf(emptyBook, '工作记录')).toHaveLength(1);
    expect(rowsOf(emptyBook, '人员汇总')).toHaveLength(1);

    const finishes = rowsOf(await workbookOf(w.admin, '?action=FINISH'), '工作记录');
    expect(finishes.slice(1).map((row) => row[7]).sort()).toEqual([1, 1.5]);
  });

  it('shows the newest activity in scope', async () => {
    const admin = await getOk(t, w.admin, '/dashboard/recent-activity?limit=3');
    expect(admin.items).toHaveLength(3);
    expect(admin.items[0]).toMatchObject({ task_id: w.tasks.t5.id, action: 'FINISH', action_label: '完成', user_id: w.after.id, hours: 1 });
    const prod = await getOk(t, w.prod.token, '/dashboard/recent-activity');
    expect(prod.items).toHaveLength(7);
    expect(prod.items[0]).toMatchObject({ task_id: w.tasks.t3.id, action: 'START', serial_number: w.products.d1.serial_number });
    expect(await getOk(t, w.empty.token, '/dashboard/recent-activity')).toEqual({ items: [] });
  });

  it('answers 422 with msg and code for bad query parameters', async () => {
    const bad = [
      '/dashboard/monthly-production?months=0',
      '/dashboard/monthly-production?months=37',
      '/dashboard/reminders?limit=0',
      '/dashboard/recent-activity?limit=-1',
      '/dashboard/people-history?start_date=2024-02-30',
      '/dashboard/people-history?end_date=yesterday',
      '/dashboard/people-history?start_date=2024-05-02&end_date=2024-05-01',
      '/dashboard/people-history?start_date=2023-01-01&end_date=2024-12-31',
      '/dashboard/people-history?user_id=abc',
      '/dashboard/people-history?action=DANCE',
      '/dashboard/people-history/export?start_date=2024-13-01',
      '/dashboard/cards/in_production/items?page=0',
    ];
    for (const path of bad) {
      const res = await t.request('GET', `/api/v1${path}`, { token: w.admin });
      expect(res.statusCode, path).toBe(422);
      expect(res.json(), path).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.any(String), field: expect.any(String) });
    }
  });
});
