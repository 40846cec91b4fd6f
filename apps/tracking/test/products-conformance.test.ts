import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking, type TestUser } from './helpers.js';
import { createProduct, createTask } from './scope-fixtures.js';

/**
 * Contract §8 (Shapes): every list takes `start_date` / `end_date`; a bare date is an Asia/Shanghai day and the
 * end date includes its whole day. The tracking product, task, task-log and reminder lists filter their
 * created_at by them, and a date that is not a calendar date is 422 naming the field (contract §2).
 */
describe('list date ranges (contract §8)', () => {
  let t: TestTracking;
  let assignee: TestUser;
  /** Moves a row's created_at (the API cannot date a record in the past). */
  const dateRow = (table: 'products' | 'tasks' | 'task_logs' | 'reminders', id: number, at: string) =>
    t.service.deps.database.transaction({ actor: 'test-fixture' }, (tx) =>
      tx.execute(sql`update ${sql.identifier(table)} set created_at = ${at}::timestamptz where id = ${id}`),
    );
  const ids = (res: { json(): { items: Array<{ id: number }> } }) => res.json().items.map((item) => item.id);

  // 2025-03-01T16:30Z is 2025-03-02 00:30 in Beijing; 2025-03-02T15:59Z is 23:59 the same Beijing day
  const EARLY = '2025-03-01T16:30:00Z';
  const LATE = '2025-03-02T15:59:00Z';
  const BEFORE = '2025-03-01T15:00:00Z'; // 2025-03-01 23:00 Beijing

  beforeAll(async () => {
    t = await buildTestTracking();
    assignee = await t.user('OPERATOR');
  });
  afterAll(() => t.close());

  it('filters products by created_at in Beijing days; a bad date is 422 naming the field', async () => {
    const early = await createProduct(t, { model: '日期甲' });
    const late = await createProduct(t, { model: '日期乙' });
    const before = await createProduct(t, { model: '日期丙' });
    await dateRow('products', early.id, EARLY);
    await dateRow('products', late.id, LATE);
    await dateRow('products', before.id, BEFORE);

    const day = await t.request('GET', '/api/v1/products?start_date=2025-03-02&end_date=2025-03-02', { token: t.adminToken });
    expect(day.statusCode, day.body).toBe(200);
    expect(ids(day)).toEqual([late.id, early.id]);
    expect(day.json().total).toBe(2);
    expect(ids(await t.request('GET', '/api/v1/products?end_date=2025-03-01', { token: t.adminToken }))).toEqual([before.id]);
    expect(ids(await t.request('GET', '/api/v1/products?start_date=2025-03-01&end_date=2025-03-03&keyword=日期乙', { token: t.adminToken }))).toEqual([late.id]);

    const bad = await t.request('GET', '/api/v1/products?start_date=2025-02-30', { token: t.adminToken });
    expect(bad.statusCode).toBe(422);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'start_date' });
  });

  it('filters tasks, task logs and reminders by created_at the same way', async () => {
    const product = await createProduct(t);
    const early = await createTask(t, { product_id: product.id, title: '日期任务甲', assignee_id: assignee.id });
    const late = await createTask(t, { product_id: product.id, title: '日期任务乙', assignee_id: assignee.id });
    await dateRow('tasks', early.id, BEFORE);
    await dateRow('tasks', late.id, LATE);

    const tasks = await t.request('GET', `/api/v1/tasks?product_id=${product.id}&start_date=2025-03-02&end_date=2025-03-02`, { token: t.adminToken });
    expect(tasks.statusCode, tasks.body).toBe(200);
    expect(ids(tasks)).toEqual([late.id]);
    expect(tasks.json().total).toBe(1);
    const badTasks = await t.request('GET', '/api/v1/tasks?end_date=03/02/2025', { token: t.adminToken });
    expect(badTasks.statusCode).toBe(422);
    expect(badTasks.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'end_date' });

    const logs = (await t.request('GET', `/api/v1/tasks/${late.id}/logs`, { token: t.adminToken })).json();
    expect(logs.total).toBe(1);
    await dateRow('task_logs', logs.items[0].id, BEFORE);
    expect((await t.request('GET', `/api/v1/tasks/${late.id}/logs?start_date=2025-03-02`, { token: t.adminToken })).json().total).toBe(0);
    expect((await t.request('GET', `/api/v1/tasks/${late.id}/logs?end_date=2025-03-01`, { token: t.adminToken })).json().total).toBe(1);

    const reminders = (await t.request('GET', '/api/v1/notifications', { token: assignee.token })).json();
    expect(reminders.total).toBe(2);
    const [newest, oldest] = reminders.items as Array<{ id: number }>;
    await dateRow('reminders', oldest!.id, BEFORE);
    await dateRow('reminders', newest!.id, EARLY);
    const day = await t.request('GET', '/api/v1/notifications?start_date=2025-03-02&end_date=2025-03-02', { token: assignee.token });
    expect(day.statusCode, day.body).toBe(200);
    expect(day.json()).toMatchObject({ total: 1, unread: 1 });
    expect(ids(day)).toEqual([newest!.id]);
  });
});
