import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_PASSWORD, DEMO_PRODUCT_SERIALS, queryRows } from '@wms/platform';
import { seedTrackingDemoIfEmpty } from '../src/seed/demo.js';
import { buildTestTracking, type TestTracking } from './helpers.js';

const KEY = 'demo-webhook-key';
let t: TestTracking;

beforeAll(async () => {
  t = await buildTestTracking({ config: { webhookApiKey: KEY } });
  expect(await seedTrackingDemoIfEmpty(t.service.deps.database, t.service.deps.config)).toBe(true);
});
afterAll(() => t.close());

const count = async (table: string) =>
  (await t.service.deps.database.read((q) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from ${sql.identifier(table)}`)))[0]!.n;

async function tokenOf(username: string) {
  const res = await t.login(username, DEMO_PASSWORD);
  expect(res.statusCode, res.body).toBe(200);
  return res.json().token as string;
}

describe('tracking demo data', () => {
  it('has the department\'s people, who log in with the demo password', async () => {
    const users = await t.request('GET', '/api/v1/users?limit=200', { token: t.adminToken });
    const byName = new Map(users.json().items.map((user: { username: string; role: string }) => [user.username, user.role]));
    expect(byName.get('alpha_super')).toBe('SUPERVISOR');
    expect(byName.get('alpha_eng1')).toBe('ENGINEER');
    expect(byName.get('alpha_op1')).toBe('OPERATOR');
    expect(byName.get('alpha_in')).toBe('OPERATOR');
    await tokenOf('alpha_super');
  });

  it('has the inventory demo\'s finished products stocked in, and products awaiting receipt under other serials', async () => {
    const token = await tokenOf('alpha_super');
    for (const serial of DEMO_PRODUCT_SERIALS) {
      const res = await t.request('GET', `/api/v1/products/scan/${serial}`, { token });
      expect(res.json()).toMatchObject({ serial_number: serial, status: '已入库' });
    }
    const awaiting = await t.request('GET', '/api/v1/products?status=待仓库收货', { token });
    expect(awaiting.json().total).toBeGreaterThanOrEqual(2);
    expect(awaiting.json().items.every((p: { serial_number: string }) => !(DEMO_PRODUCT_SERIALS as readonly string[]).includes(p.serial_number))).toBe(true);
    const models = await t.request('GET', '/api/v1/materials', { token });
    expect(models.json().items.map((m: { name: string }) => m.name).sort()).toEqual(['智能控制器', '智能网关']);
  });

  it('has groups with phases and members that shape the data scope, and tasks with logs and reminders', async () => {
    const groups = await t.request('GET', '/api/v1/groups', { token: t.adminToken });
    expect(groups.json().items.map((g: { name: string }) => g.name)).toEqual(expect.arrayContaining(['生产部', '装配班', '售后服务组']));
    const afterSales = await tokenOf('alpha_op3');
    const me = await t.request('GET', '/api/v1/auth/me', { token: afterSales });
    expect(me.json().scope).toMatchObject({ phases: ['AFTER_SALES'], unrestricted: false });
    const visible = await t.request('GET', '/api/v1/products', { token: afterSales });
    expect(visible.json().items.every((p: { lifecycle_phase: string }) => p.lifecycle_phase === 'AFTER_SALES')).toBe(true);
    expect(visible.json().total).toBeGreaterThan(0);

    const op1 = await tokenOf('alpha_op1');
    const reminders = await t.request('GET', '/api/v1/notifications', { token: op1 });
    expect(reminders.json().items.length).toBeGreaterThan(0);
    expect(await count('tasks')).toBeGreaterThanOrEqual(5);
    expect(await count('task_logs')).toBeGreaterThan(await count('tasks'));
  });

  it('lets a demo product be stocked in by notification, showing the warehouse person\'s name in the audit', async () => {
    const res = await t.request('POST', '/api/v1/integrations/inventory/stock-in', {
      headers: { 'x-api-key': KEY },
      body: { event_id: 'demo-1', company_name: 'ALPHA', operator: 'alpha_in', serial_number: 'A00000000000C106', source_table: 'stock_product' },
    });
    expect(res.json()).toEqual({ ok: true, matched: true });
    const [entry] = await t.service.deps.database.read((q) =>
      queryRows<{ username: string }>(q, sql`select username from audit_logs where table_name = 'products' and target_name = 'A00000000000C106' order by id desc limit 1`),
    );
    expect(entry!.username).toBe('郑仓管（入库）');
  });

  it('is loaded only into a database without products', async () => {
    const products = await count('products');
    expect(await seedTrackingDemoIfEmpty(t.service.deps.database, t.service.deps.config)).toBe(false);
    expect(await count('products')).toBe(products);
  });
});
