/**
 * Contract §8: every list takes page, limit, keyword, start_date and end_date (a bare date is a Beijing day,
 * the end date includes its whole day; decisions Tracking #14). These are the tracking lists that did not take
 * them all: each must filter on its creation time and answer a bad date with 422 naming the field, and its
 * keyword must narrow case-insensitively. (/audit and the statistics routes keep their own date rules.)
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { beijingDate, beijingMidnight } from '@wms/platform';
import { buildTestTracking, type TestTracking, type TestUser } from './helpers.js';
import { createProduct, createTask } from './scope-fixtures.js';

const API = '/api/v1';
let t: TestTracking;
let worker: TestUser;
beforeAll(async () => {
  t = await buildTestTracking();
  worker = await t.user('OPERATOR', { name: 'Worker Kw' });
});
afterAll(() => t?.close());

const today = beijingDate(new Date());
const tomorrow = beijingDate(new Date(beijingMidnight(today).getTime() + 24 * 3600e3));
const yesterday = beijingDate(new Date(beijingMidnight(today).getTime() - 24 * 3600e3));

type Items = Record<string, unknown>[];

async function list(path: string, query: Record<string, string>, token = t.adminToken): Promise<{ items: Items; total: number; limit: number }> {
  const separator = path.includes('?') ? '&' : '?';
  const search = new URLSearchParams({ limit: '200', ...query }).toString();
  const response = await t.request('GET', `${API}${path}${separator}${search}`, { token });
  expect(response.statusCode, `${path} ${search}: ${response.body}`).toBe(200);
  return response.json();
}

async function expectDateBounds(path: string, has: (items: Items) => boolean, token = t.adminToken) {
  expect(has((await list(path, { start_date: today, end_date: today }, token)).items), `${path} today`).toBe(true);
  expect(has((await list(path, { start_date: tomorrow }, token)).items), `${path} from tomorrow`).toBe(false);
  expect(has((await list(path, { end_date: yesterday }, token)).items), `${path} until yesterday`).toBe(false);
  for (const field of ['start_date', 'end_date']) {
    const separator = path.includes('?') ? '&' : '?';
    const bad = await t.request('GET', `${API}${path}${separator}${field}=2024-13-01`, { token });
    expect(bad.statusCode, `${path} bad ${field}`).toBe(422);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field });
  }
}

async function expectKeyword(path: string, keyword: string, has: (items: Items) => boolean, token = t.adminToken) {
  expect(has((await list(path, { keyword }, token)).items), `${path} keyword ${keyword}`).toBe(true);
  expect(has((await list(path, { keyword: `${keyword}-无此项` }, token)).items), `${path} other keyword`).toBe(false);
}

const withId = (id: unknown) => (items: Items) => items.some((item) => item.id === id);

describe('lists that gained start_date / end_date (created_at)', () => {
  it('GET /users', async () => {
    await expectDateBounds('/users', withId(worker.id));
    await expectKeyword('/users', 'worker KW', withId(worker.id));
  });

  it('GET /materials', async () => {
    const created = await t.request('POST', `${API}/materials`, { token: t.adminToken, body: { name: 'Model-Dated', category: 'ALPHA/成品' } });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    await expectDateBounds('/materials', withId(id));
    await expectKeyword('/materials', 'model-DATED', withId(id));
  });

  it('GET /groups', async () => {
    const created = await t.request('POST', `${API}/groups`, { token: t.adminToken, body: { name: 'Dated Group' } });
    expect(created.statusCode, created.body).toBe(201);
    const id = (created.json() as { id: number }).id;
    await expectDateBounds('/groups', withId(id));
    await expectKeyword('/groups', 'dated GROUP', withId(id));
  });
});

describe('lists that gained keyword', () => {
  it('GET /tasks/{id}/logs: the content or the writer', async () => {
    const product = await createProduct(t);
    const task = (await createTask(t, { product_id: product.id, title: 'Keyword Task' })) as { id: number };
    const logged = await t.request('POST', `${API}/tasks/${task.id}/logs`, { token: t.adminToken, body: { action: 'COMMENT', content: 'Solder Joint OK' } });
    expect(logged.statusCode, logged.body).toBe(201);
    const logId = (logged.json() as { id: number }).id;
    const path = `/tasks/${task.id}/logs`;
    await expectKeyword(path, 'solder joint', withId(logId));
    expect((await list(path, { keyword: 'SOLDER' })).total).toBe(1);
    expect((await list(path, { keyword: 'admin' })).total).toBeGreaterThanOrEqual(2); // the writer's account
    await expectDateBounds(path, withId(logId));
  });

  it('GET /notifications: the content, with the unread count under the same filter', async () => {
    const product = await createProduct(t);
    await createTask(t, { product_id: product.id, title: 'Reminder Alpha', assignee_id: worker.id });
    await createTask(t, { product_id: product.id, title: 'Reminder Beta', assignee_id: worker.id });
    const mine = await list('/notifications', { keyword: 'reminder ALPHA' }, worker.token);
    expect(mine.total).toBe(1);
    expect(mine.items[0]!.content).toContain('Reminder Alpha');
    expect((mine as unknown as { unread: number }).unread).toBe(1);
    expect((await list('/notifications', { keyword: 'reminder' }, worker.token)).total).toBe(2);
    await expectDateBounds('/notifications', (items) => items.length === 2, worker.token);
  });
});
