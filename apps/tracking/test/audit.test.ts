import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestTracking, type TestTracking } from './helpers.js';
import { createProduct } from './scope-fixtures.js';

const KEY = 'audit-webhook-key';

describe('tracking audit log', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking({ config: { webhookApiKey: KEY } });
  });
  afterAll(() => t.close());

  it('is for SUPER_ADMIN only', async () => {
    const supervisor = await t.user('SUPERVISOR');
    expect((await t.request('GET', '/api/v1/audit', { token: supervisor.token })).statusCode).toBe(403);
    expect((await t.request('GET', '/api/v1/audit')).statusCode).toBe(401);
  });

  it('lists writes newest first with the actor, Beijing time and the source path', async () => {
    const product = await createProduct(t, { model: '审计样机' });
    const query = `module=${encodeURIComponent('产品管理')}&action=CREATE&target_keyword=${product.serial_number}`;
    const page = (await t.request('GET', `/api/v1/audit?${query}`, { token: t.adminToken })).json();
    expect(page.total).toBe(1);
    const created = page.items[0];
    expect(created.target_id).toBe(String(product.id));
    expect((await t.request('GET', '/api/v1/audit/modules', { token: t.adminToken })).json()).toContainEqual({ value: '产品管理', label: '产品管理' });
    expect(created.username).toBe('admin');
    expect(created.time).toMatch(/\+08:00$/);
    expect(created.source).toBe('/products');
  });

  it('shows the operator of a received notification', async () => {
    const product = await createProduct(t, { model: '通知样机' });
    await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body: { status: '待仓库收货' } });
    const notice = { event_id: randomUUID(), company_name: 'ALPHA', operator: 'warehouse_zhang', serial_number: product.serial_number, quantity: 1 };
    const received = await t.request('POST', '/api/v1/integrations/inventory/stock-in', { body: notice, headers: { 'x-api-key': KEY } });
    expect(received.json()).toMatchObject({ ok: true, matched: true });
    const entries = (await t.request('GET', '/api/v1/audit?username=warehouse_zhang', { token: t.adminToken })).json();
    expect(entries.total).toBeGreaterThan(0);
    expect(entries.items.every((entry: { username: string }) => entry.username === 'warehouse_zhang')).toBe(true);
  });

  it('filters by the general list keyword (contract §8): target id or name, or the actor’s account or name', async () => {
    const writer = await t.user('SUPER_ADMIN', { name: '审计关键字人' });
    const product = await createProduct(t, { model: '关键字样机' }, writer.token);
    const search = async (keyword: string) =>
      (await t.request('GET', `/api/v1/audit?limit=200&keyword=${encodeURIComponent(keyword)}`, { token: t.adminToken })).json() as {
        total: number;
        items: Array<{ target_id: string; username: string; module: string }>;
      };
    const byName = await search('审计关键字');
    expect(byName.total).toBeGreaterThan(0);
    expect(byName.items.every((entry) => entry.username === writer.username)).toBe(true);
    expect(byName.items.some((entry) => entry.module === '产品管理' && entry.target_id === String(product.id))).toBe(true);
    // the account matches the writer's records and the record of the account's own creation (its target name)
    const byAccount = await search(writer.username.toUpperCase());
    expect(byAccount.items.filter((entry) => entry.username === writer.username)).toHaveLength(byName.total);
    expect(byAccount.items.some((entry) => entry.username === 'admin' && entry.module === '用户管理')).toBe(true);
    const bySerial = await search(product.serial_number.toLowerCase());
    expect(bySerial.items.some((entry) => entry.target_id === String(product.id))).toBe(true);
    expect((await search('无此关键字%_')).total).toBe(0);
  });

  it('finds a received notification by the operator’s account although the entry shows the display name', async () => {
    const operator = await t.user('OPERATOR', { name: '库管赵' });
    const product = await createProduct(t, { model: '接收关键字样机' });
    await t.request('PATCH', `/api/v1/products/${product.id}`, { token: t.adminToken, body: { status: '待仓库收货' } });
    const notice = { event_id: randomUUID(), company_name: 'ALPHA', operator: operator.username, serial_number: product.serial_number, quantity: 1 };
    const received = await t.request('POST', '/api/v1/integrations/inventory/stock-in', { body: notice, headers: { 'x-api-key': KEY } });
    expect(received.json()).toMatchObject({ ok: true, matched: true });
    const page = (await t.request('GET', `/api/v1/audit?limit=200&keyword=${operator.username.toUpperCase()}`, { token: t.adminToken })).json();
    const received_entries = page.items.filter((entry: { source: string }) => entry.source === '/integrations/inventory/stock-in');
    expect(received_entries.length).toBeGreaterThan(0);
    expect(received_entries.every((entry: { username: string }) => entry.username === '库管赵')).toBe(true);
  });

  it('refuses bad filters with 422', async () => {
    const res = await t.request('GET', '/api/v1/audit?start_date=yesterday', { token: t.adminToken });
    expect(res.statusCode).toBe(422);
    expect(res.json().code).toBe('VALIDATION_FAILED');
    // dates of the right shape that are no day of the calendar: 422 naming the field, never a 500
    for (const [field, value] of [['start_date', '2024-13-45'], ['end_date', '2024-00-10'], ['start_date', '2024-02-30']]) {
      const impossible = await t.request('GET', `/api/v1/audit?${field}=${value}`, { token: t.adminToken });
      expect(impossible.statusCode, `${field}=${value}`).toBe(422);
      expect(impossible.json()).toMatchObject({ code: 'VALIDATION_FAILED', field });
    }
  });
});
