import { count, eq } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { reminders, taskLogs, tasks } from '../src/db/schema/index.js';
import { buildTestTracking, uniqueName, type TestTracking, type TestUser } from './helpers.js';
import { createProduct, createTask, groupedUser } from './scope-fixtures.js';

const TASK_FIELDS = ['id', 'product_id', 'title', 'type', 'stage', 'status', 'assignee_id', 'due_date', 'started_at', 'finished_at', 'hours'];
const LOG_FIELDS = ['id', 'task_id', 'user_id', 'action', 'content', 'hours', 'created_at'];

describe('tasks, task logs and reminders', () => {
  let t: TestTracking;
  let worker: TestUser;
  let production: TestUser;
  let productId: number;
  let afterSalesProductId: number;

  const counts = async () =>
    t.service.deps.database.read(async (q) => {
      const [taskRows] = await q.select({ n: count() }).from(tasks);
      const [logRows] = await q.select({ n: count() }).from(taskLogs);
      const [reminderRows] = await q.select({ n: count() }).from(reminders);
      return { tasks: taskRows!.n, logs: logRows!.n, reminders: reminderRows!.n };
    });
  const log = (taskId: number, body: Record<string, unknown>, token = worker.token) => t.request('POST', `/api/v1/tasks/${taskId}/logs`, { token, body });
  const taskOf = async (id: number) => (await t.request('GET', `/api/v1/tasks/${id}`, { token: t.adminToken })).json();

  beforeAll(async () => {
    t = await buildTestTracking();
    worker = await t.user('OPERATOR', { name: '王工' });
    production = await groupedUser(t, 'ENGINEER', ['PRODUCTION']);
    productId = (await createProduct(t)).id;
    afterSalesProductId = (await createProduct(t, { lifecycle_phase: 'AFTER_SALES' })).id;
  });
  afterAll(() => t.close());

  describe('create', () => {
    it('creates a TODO task with the task fields, logs CREATE and reminds the assignee', async () => {
      const res = await t.request('POST', '/api/v1/tasks', {
        token: t.adminToken,
        body: { product_id: productId, title: '整机装配', stage: '装配', assignee_id: worker.id, due_date: '2031-05-20' },
      });
      expect(res.statusCode).toBe(201);
      const task = res.json();
      for (const field of TASK_FIELDS) expect(task, field).toHaveProperty(field);
      expect(task).toMatchObject({
        product_id: productId,
        title: '整机装配',
        type: 'PRODUCTION',
        stage: '装配',
        status: 'TODO',
        assignee_id: worker.id,
        assignee_name: '王工',
        due_date: '2031-05-20',
        started_at: null,
        finished_at: null,
        hours: 0,
      });
      const logs = (await t.request('GET', `/api/v1/tasks/${task.id}/logs`, { token: t.adminToken })).json();
      expect(logs.items).toHaveLength(1);
      expect(logs.items[0]).toMatchObject({ action: 'CREATE', user_id: t.adminId, hours: 0 });

      const mine = (await t.request('GET', '/api/v1/notifications', { token: worker.token })).json();
      expect(mine.items[0]).toMatchObject({ user_id: worker.id, task_id: task.id, read_at: null });
      expect(mine.items[0].content).toContain('整机装配');
      expect(mine.unread).toBeGreaterThanOrEqual(1);
    });

    it('defaults the type of an after-sales product’s task to AFTER_SALES and writes no reminder without assignee', async () => {
      const before = await counts();
      const task = await createTask(t, { product_id: afterSalesProductId, title: '返修检查' });
      expect(task).toMatchObject({ type: 'AFTER_SALES', stage: null, assignee_id: null });
      expect((await counts()).reminders).toBe(before.reminders);
    });

    it('answers bad input with 422 {msg, code, field} and writes nothing', async () => {
      const inactive = await t.insertUser({ username: uniqueName('off'), department: 'ALPHA', active: false });
      const foreign = await t.insertUser({ username: uniqueName('beta'), department: 'BETA' });
      const before = await counts();
      const cases: Array<[Record<string, unknown>, string]> = [
        [{ title: 'x' }, 'product_id'],
        [{ product_id: 999999, title: 'x' }, 'product_id'],
        [{ product_id: productId }, 'title'],
        [{ product_id: productId, title: '' }, 'title'],
        [{ product_id: productId, title: 'x', type: 'CLEANING' }, 'type'],
        [{ product_id: productId, title: 'x', stage: '喷漆' }, 'stage'],
        [{ product_id: productId, title: 'x', assignee_id: 999999 }, 'assignee_id'],
        [{ product_id: productId, title: 'x', assignee_id: inactive }, 'assignee_id'],
        [{ product_id: productId, title: 'x', assignee_id: foreign }, 'assignee_id'],
        [{ product_id: productId, title: 'x', due_date: '2031-02-30' }, 'due_date'],
        [{ product_id: productId, title: 'x', due_date: '明天' }, 'due_date'],
        [{ product_id: String(productId), title: 'x' }, 'product_id'],
      ];
      for (const [body, field] of cases) {
        const res = await t.request('POST', '/api/v1/tasks', { token: t.adminToken, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json(), JSON.stringify(body)).toMatchObject({ code: 'VALIDATION_FAILED', field });
        expect(typeof res.json().msg).toBe('string');
      }
      expect(await counts()).toEqual(before);
    });

    it('is 403 on a product outside the caller scope, writing nothing', async () => {
      const before = await counts();
      const res = await t.request('POST', '/api/v1/tasks', { token: production.token, body: { product_id: afterSalesProductId, title: 'x', assignee_id: worker.id } });
      expect(res.statusCode).toBe(403);
      expect(res.json().code).toBe('FORBIDDEN');
      expect(await counts()).toEqual(before);
      expect((await t.request('POST', '/api/v1/tasks', { token: production.token, body: { product_id: productId, title: 'x' } })).statusCode).toBe(201);
    });
  });

  describe('logs move the task', () => {
    it('START starts, PROGRESS and FINISH add hours, FINISH finishes; START reopens', async () => {
      const task = await createTask(t, { product_id: productId, assignee_id: worker.id });
      const started = await log(task.id, { action: 'START', content: '开始装配' });
      expect(started.statusCode).toBe(201);
      for (const field of LOG_FIELDS) expect(started.json(), field).toHaveProperty(field);
      expect(started.json()).toMatchObject({ task_id: task.id, user_id: worker.id, user_name: '王工', action: 'START', content: '开始装配', hours: 0 });
      const afterStart = await taskOf(task.id);
      expect(afterStart).toMatchObject({ status: 'IN_PROGRESS', finished_at: null });
      expect(afterStart.started_at).not.toBeNull();

      expect((await log(task.id, { action: 'PROGRESS', content: '完成一半', hours: 1.5 })).statusCode).toBe(201);
      expect((await log(task.id, { action: 'COMMENT', content: '缺螺丝', hours: 0.1 })).statusCode).toBe(201);
      expect(await taskOf(task.id)).toMatchObject({ status: 'IN_PROGRESS', hours: 1.6 });
      const finished = await log(task.id, { action: 'FINISH', hours: 2.25 });
      expect(finished.json()).toMatchObject({ action: 'FINISH', hours: 2.25 });
      const done = await taskOf(task.id);
      expect(done).toMatchObject({ status: 'DONE', hours: 3.85, started_at: afterStart.started_at });
      expect(done.finished_at).not.toBeNull();

      const reopened = await log(task.id, { action: 'START', content: '返工' });
      expect(reopened.statusCode).toBe(201);
      expect(await taskOf(task.id)).toMatchObject({ status: 'IN_PROGRESS', finished_at: null, started_at: afterStart.started_at, hours: 3.85 });

      const logs = (await t.request('GET', `/api/v1/tasks/${task.id}/logs`, { token: worker.token })).json();
      expect(logs.items.map((l: { action: string }) => l.action)).toEqual(['CREATE', 'START', 'PROGRESS', 'COMMENT', 'FINISH', 'START']);
      expect(logs.total).toBe(6);
    });

    it('FINISH of a task that never started stamps both times', async () => {
      const task = await createTask(t, { product_id: productId });
      await log(task.id, { action: 'FINISH' });
      const done = await taskOf(task.id);
      expect(done.status).toBe('DONE');
      expect(done.started_at).toBe(done.finished_at);
    });

    it('refuses a move the status does not allow with 400 and writes no log', async () => {
      const task = await createTask(t, { product_id: productId });
      await log(task.id, { action: 'START' });
      const before = await counts();
      const again = await log(task.id, { action: 'START' });
      expect(again.statusCode).toBe(400);
      expect(again.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED' });
      await log(task.id, { action: 'FINISH' });
      const twice = await log(task.id, { action: 'FINISH', hours: 3 });
      expect(twice.statusCode).toBe(400);
      expect((await counts()).logs).toBe(before.logs + 1);
      expect((await taskOf(task.id)).hours).toBe(0);
    });

    it('answers bad log input with 422 and writes nothing; unknown task 404', async () => {
      const task = await createTask(t, { product_id: productId });
      const before = await counts();
      for (const body of [{}, { action: 'CREATE' }, { action: 'DANCE' }, { action: 'PROGRESS', hours: -1 }, { action: 'PROGRESS', hours: '2' }, { action: 'PROGRESS', hours: 5000 }]) {
        const res = await log(task.id, body);
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json().code).toBe('VALIDATION_FAILED');
      }
      expect((await log(999999, { action: 'COMMENT' })).statusCode).toBe(404);
      expect(await counts()).toEqual(before);
    });

    it('refuses hours finer than two decimals (they would be rounded away) and keeps two-decimal hours exact', async () => {
      const task = await createTask(t, { product_id: productId });
      const before = await counts();
      for (const hours of [0.001, 1.255, 0.005]) {
        const res = await log(task.id, { action: 'PROGRESS', hours });
        expect(res.statusCode, String(hours)).toBe(422);
        expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'hours' });
      }
      expect(await counts()).toEqual(before);
      expect((await taskOf(task.id)).hours).toBe(0);
      expect((await log(task.id, { action: 'PROGRESS', hours: 1.1 })).statusCode).toBe(201);
      expect((await log(task.id, { action: 'COMMENT', hours: 0.07 })).statusCode).toBe(201);
      expect((await taskOf(task.id)).hours).toBe(1.17);
    });
  });

  describe('update', () => {
    it('changes fields, sets status like the logs do, and reminds a new assignee', async () => {
      const task = await createTask(t, { product_id: productId, assignee_id: worker.id });
      const other = await t.user('OPERATOR', { name: '李工' });
      const res = await t.request('PATCH', `/api/v1/tasks/${task.id}`, {
        token: t.adminToken,
        body: { title: '整机调试', stage: '调试', type: 'INSPECTION', assignee_id: other.id, due_date: null, status: 'DONE' },
      });
      expect(res.statusCode).toBe(200);
      expect(res.json()).toMatchObject({ title: '整机调试', stage: '调试', type: 'INSPECTION', assignee_id: other.id, assignee_name: '李工', status: 'DONE' });
      expect(res.json().finished_at).not.toBeNull();
      const logs = (await t.request('GET', `/api/v1/tasks/${task.id}/logs`, { token: t.adminToken })).json().items;
      expect(logs.at(-1)).toMatchObject({ action: 'FINISH', user_id: t.adminId });
      const reminded = (await t.request('GET', '/api/v1/notifications', { token: other.token })).json();
      expect(reminded.items).toHaveLength(1);
      expect(reminded.items[0]).toMatchObject({ task_id: task.id });

      const back = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: t.adminToken, body: { status: 'TODO' } });
      expect(back.json()).toMatchObject({ status: 'TODO', started_at: null, finished_at: null });
    });

    it('writes nothing for values equal to the stored ones, and 422 for bad input', async () => {
      const task = await createTask(t, { product_id: productId, title: '同值任务' });
      const before = await counts();
      const same = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: t.adminToken, body: { title: '同值任务', status: 'TODO' } });
      expect(same.statusCode).toBe(200);
      for (const body of [{}, { status: 'LATER' }, { assignee_id: 999999 }, { due_date: '2031-13-01' }, { title: '' }]) {
        const res = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: t.adminToken, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
      }
      expect(await counts()).toEqual(before);
      expect((await t.request('PATCH', '/api/v1/tasks/999999', { token: t.adminToken, body: { title: 'x' } })).statusCode).toBe(404);
    });

    it('refuses a body of only fields it cannot change (hours, unknown ones) with 422 like {}', async () => {
      const task = await createTask(t, { product_id: productId, title: '工时任务' });
      for (const body of [{ hours: 5 }, { hours: 5, product_id: afterSalesProductId }, { colour: 'red' }]) {
        const res = await t.request('PATCH', `/api/v1/tasks/${task.id}`, { token: t.adminToken, body });
        expect(res.statusCode, JSON.stringify(body)).toBe(422);
        expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', msg: expect.stringContaining('没有需要修改的字段') });
      }
      expect(await taskOf(task.id)).toMatchObject({ hours: 0, product_id: productId, updated_at: expect.any(String) });
      const [row] = await t.service.deps.database.read((q) => q.select().from(tasks).where(eq(tasks.id, task.id)));
      expect(row!.updatedAt.toISOString()).toBe(row!.createdAt.toISOString());
    });

    it('is 403 for a task of a product outside the caller scope: read, update and log, nothing written', async () => {
      const foreign = await createTask(t, { product_id: afterSalesProductId, title: '售后任务' });
      const before = await counts();
      const patch = await t.request('PATCH', `/api/v1/tasks/${foreign.id}`, { token: production.token, body: { title: '改了' } });
      expect(patch.statusCode).toBe(403);
      expect(patch.json().code).toBe('FORBIDDEN');
      expect((await log(foreign.id, { action: 'START' }, production.token)).statusCode).toBe(403);
      expect((await t.request('GET', `/api/v1/tasks/${foreign.id}`, { token: production.token })).statusCode).toBe(403);
      expect((await t.request('GET', `/api/v1/tasks/${foreign.id}/logs`, { token: production.token })).statusCode).toBe(403);
      expect(await counts()).toEqual(before);
      expect(await taskOf(foreign.id)).toMatchObject({ title: '售后任务', status: 'TODO' });
    });
  });

  describe('list', () => {
    it('filters by assignee, status, product and keyword', async () => {
      const product = await createProduct(t);
      const a = await createTask(t, { product_id: product.id, title: '甲任务', assignee_id: worker.id });
      const b = await createTask(t, { product_id: product.id, title: '乙任务' });
      await log(a.id, { action: 'START' });
      const byProduct = (await t.request('GET', `/api/v1/tasks?product_id=${product.id}`, { token: t.adminToken })).json();
      expect(byProduct.items.map((x: { id: number }) => x.id)).toEqual([b.id, a.id]);
      const started = (await t.request('GET', `/api/v1/tasks?product_id=${product.id}&status=IN_PROGRESS&assignee_id=${worker.id}`, { token: t.adminToken })).json();
      expect(started.items.map((x: { id: number }) => x.id)).toEqual([a.id]);
      const bySerial = (await t.request('GET', `/api/v1/tasks?keyword=${product.serial_number}`, { token: t.adminToken })).json();
      expect(bySerial.total).toBe(2);
      expect((await t.request('GET', '/api/v1/tasks?status=LATER', { token: t.adminToken })).statusCode).toBe(422);
    });
  });

  describe('reminders', () => {
    it('lists only the caller’s own, marks them read once, and hides others’ (404)', async () => {
      const reader = await t.user('OPERATOR');
      const task = await createTask(t, { product_id: productId, title: '提醒任务', assignee_id: reader.id });
      await createTask(t, { product_id: productId, title: '提醒任务二', assignee_id: reader.id });
      const list = (await t.request('GET', '/api/v1/notifications', { token: reader.token })).json();
      expect(list).toMatchObject({ total: 2, unread: 2 });
      const first = list.items.find((r: { task_id: number }) => r.task_id === task.id);

      expect((await t.request('POST', `/api/v1/notifications/${first.id}/read`, { token: worker.token })).statusCode).toBe(404);
      const read = await t.request('POST', `/api/v1/notifications/${first.id}/read`, { token: reader.token });
      expect(read.statusCode).toBe(200);
      expect(read.json().read_at).not.toBeNull();
      const again = await t.request('POST', `/api/v1/notifications/${first.id}/read`, { token: reader.token });
      expect(again.json().read_at).toBe(read.json().read_at);

      const unread = (await t.request('GET', '/api/v1/notifications?unread=true', { token: reader.token })).json();
      expect(unread).toMatchObject({ total: 1, unread: 1 });
      expect((await t.request('GET', '/api/v1/notifications', { token: worker.token })).json().items.every((r: { user_id: number }) => r.user_id === worker.id)).toBe(true);
      expect((await t.request('POST', '/api/v1/notifications/999999/read', { token: reader.token })).statusCode).toBe(404);
      const [row] = await t.service.deps.database.read((q) => q.select().from(reminders).where(eq(reminders.id, first.id)));
      expect(row!.readAt).not.toBeNull();
    });
  });
});
