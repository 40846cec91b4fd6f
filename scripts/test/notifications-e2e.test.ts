/**
 * End to end: the inventory service and the tracking service wired over real HTTP on free ports, as
 * `npm start` wires them. Proves that a stock-in and an outbound in the inventory reach the tracking
 * product, that the identity-card lookup prefills a stock-in, and that a stopped tracking service (and a
 * restarted inventory service) neither loses nor duplicates a notification.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows, type Database } from '@wms/platform';
import { createTestDatabase, usingPostgres } from '@wms/platform/testing';
import { buildInventoryApp, type InventoryApp } from '../../apps/inventory/src/app.js';
import { buildTrackingApp, type TrackingApp } from '../../apps/tracking/src/app.js';
import { buildTestInventory, testConfig as inventoryConfig, type TestInventory, type TestUser } from '../../apps/inventory/test/helpers.js';
import { buildTestTracking, testConfig as trackingConfig, type TestTracking } from '../../apps/tracking/test/helpers.js';

const KEY = 'e2e-webhook-key-0123456789';
const FAST = { intervalMs: 50, retryBaseMs: 40, retryMaxMs: 250, timeoutMs: 3000 };
const ADMIN = { username: 'admin', password: 'admin-pass-123' };

type Injectable = { inject: InventoryApp['app']['inject'] };
async function call(app: Injectable, method: string, url: string, token?: string, body?: unknown) {
  return app.inject({
    method: method as 'GET',
    url,
    headers: token ? { authorization: `Bearer ${token}` } : {},
    ...(body === undefined ? {} : { payload: body as object }),
  });
}
async function ok(app: Injectable, method: string, url: string, token: string | undefined, body: unknown, status: number) {
  const res = await call(app, method, url, token, body);
  expect(res.statusCode, `${method} ${url}: ${res.body}`).toBe(status);
  return res.json();
}
const loginToken = async (app: Injectable) => (await ok(app, 'POST', '/api/v1/auth/login', undefined, ADMIN, 200)).token as string;

/** Polls until `done` holds; fails the test with the last value after the timeout. */
async function until<T>(read: () => Promise<T>, done: (value: T) => boolean, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await read();
    if (done(value)) return value;
    if (Date.now() > deadline) throw new Error(`timed out; last value: ${JSON.stringify(value)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** A tracking product the warehouse is waiting for (created and finished through the tracking API). */
async function awaitingProduct(tracking: Injectable, token: string, model: string): Promise<string> {
  const product = await ok(tracking, 'POST', '/api/v1/products', token, { model }, 201);
  await ok(tracking, 'PATCH', `/api/v1/products/${product.id}`, token, { status: '待仓库收货' }, 200);
  return product.serial_number as string;
}
const productStatus = async (tracking: Injectable, token: string, serial: string) =>
  (await ok(tracking, 'GET', `/api/v1/products/scan/${serial}`, token, undefined, 200)).status as string;

describe('inventory → tracking over HTTP', () => {
  let trk: TestTracking;
  let inv: TestInventory;
  let trackingUrl: string;
  let mgr: TestUser;
  let inbound: TestUser;

  beforeAll(async () => {
    trk = await buildTestTracking({ config: { webhookApiKey: KEY } });
    const address = await trk.service.app.listen({ host: '127.0.0.1', port: 0 });
    trackingUrl = address;
    inv = await buildTestInventory({ config: { trackingUrl, trackingWebhookKey: KEY }, dispatcher: FAST });
    mgr = await inv.user('WAREHOUSE_MGR', 'ALPHA');
    inbound = await inv.user('INBOUND', 'ALPHA');
    await inv.user('WAREHOUSE_MGR', 'BETA'); // a company exists through its users (decisions, Platform 17)
  });
  afterAll(async () => {
    await inv?.close();
    await trk?.close();
  });

  it('prefills a stock-in from the identity card, and the stock-in and the outbound reach the tracking product', async () => {
    const serial = await awaitingProduct(trk.service.app, trk.adminToken, '智能控制器');
    await ok(trk.service.app, 'POST', '/api/v1/users', trk.adminToken, { username: inbound.username, password: 'password-1', name: '入库员小王', role: 'OPERATOR' }, 201);
    const material = await ok(inv.service.app, 'POST', '/api/v1/inbound/base', mgr.token, { name: '智能控制器', category: 'ALPHA/成品/控制器', spec_model: 'SC-100', unit: '台' }, 201);

    const card = await ok(inv.service.app, 'GET', `/api/v1/inbound/stock/card/${serial.toLowerCase()}`, inbound.token, undefined, 200);
    expect(card).toMatchObject({
      source_table: 'stock_product',
      serial_number: serial,
      base_id: material.id,
      material_name: '智能控制器',
      spec_model: 'SC-100',
      category: 'ALPHA/成品/控制器',
      company_name: 'ALPHA',
      in_quantity: 1,
      production_date: expect.stringMatching(/^\d{4}-\d{2}-\d{2}$/),
      tracking: { model: '智能控制器', status: '待仓库收货', lifecycle_phase: 'PRODUCTION' },
      existing_stock: null,
    });

    const row = await ok(inv.service.app, 'POST', '/api/v1/inbound/stock', inbound.token, {
      source_table: card.source_table,
      base_id: card.base_id,
      serial_number: card.serial_number,
      in_quantity: card.in_quantity,
      production_date: card.production_date,
      warehouse_location: 'C区/成品架/01格',
    }, 201);
    await until(() => productStatus(trk.service.app, trk.adminToken, serial), (status) => status === '已入库');

    const audit = await trk.service.deps.database.read((q) =>
      queryRows<{ table_name: string; username: string }>(q, sql`select table_name, username from audit_logs
        where (table_name = 'products' and target_name = ${serial}) or table_name = 'integration_events' order by id desc limit 2`),
    );
    expect(audit.map((entry) => entry.username)).toEqual(['入库员小王', '入库员小王']);

    const after = await ok(inv.service.app, 'GET', `/api/v1/inbound/stock/card/${serial}`, inbound.token, undefined, 200);
    expect(after).toMatchObject({ base_id: material.id, tracking: { status: '已入库', base_id: material.id }, existing_stock: { id: row.id, sku: row.sku, status: '在库' } });

    const sales = await inv.user('SALES', 'ALPHA');
    const op = await inv.user('OUTBOUND', 'ALPHA');
    const request = await ok(inv.service.app, 'POST', '/api/v1/outbound/request', sales.token, { outbound_type: 'SALES', items: [{ base_id: material.id, quantity: 1 }], remark: 'e2e' }, 201);
    await ok(inv.service.app, 'POST', `/api/v1/outbound/request/${request.id}/approve`, mgr.token, undefined, 200);
    await ok(inv.service.app, 'POST', '/api/v1/outbound', op.token, { request_id: request.id, lines: [{ barcode: row.sku, quantity: 1 }] }, 201);
    await until(() => productStatus(trk.service.app, trk.adminToken, serial), (status) => status === '已出库');

    // the product moves when the receiver applies the message; the outbox row is marked delivered a moment later
    const deliveredOfSerial = async () => {
      const outbox = await ok(inv.service.app, 'GET', '/api/v1/integrations/outbox?status=delivered&limit=200', inv.adminToken, undefined, 200);
      return (outbox.items as Array<{ kind: string; attempts: number; payload: { serial_number?: string; items?: Array<{ serial_number: string }> } }>)
        .filter((m) => m.payload.serial_number === serial || m.payload.items?.some((item) => item.serial_number === serial))
        .map((m) => [m.kind, m.attempts]);
    };
    expect(await until(deliveredOfSerial, (delivered) => delivered.length >= 2)).toEqual([['outbound', 1], ['stock-in', 1]]);
  });

  it('lets the tracking service ignore another company\'s stock-in: delivered, product unchanged', async () => {
    const serial = await awaitingProduct(trk.service.app, trk.adminToken, '智能网关');
    const beta = await ok(inv.service.app, 'POST', '/api/v1/inbound/base', inv.adminToken, { name: '智能网关', category: 'BETA/成品/网关', company_name: 'BETA' }, 201);
    await ok(inv.service.app, 'POST', '/api/v1/inbound/stock', inv.adminToken, { source_table: 'stock_product', base_id: beta.id, in_quantity: 1, serial_number: serial, company_name: 'BETA' }, 201);
    const [message] = await inv.service.deps.database.read((q) =>
      queryRows<{ event_id: string }>(q, sql`select event_id::text from notification_outbox order by id desc limit 1`),
    );
    await until(
      async () => (await ok(inv.service.app, 'GET', `/api/v1/integrations/outbox?event_id=${message!.event_id}`, inv.adminToken, undefined, 200)).items[0].status,
      (status) => status === 'delivered',
    );
    expect(await productStatus(trk.service.app, trk.adminToken, serial)).toBe('待仓库收货');
  });

  it('answers the identity card 404 for an unknown serial and 503 UPSTREAM_UNAVAILABLE when the tracking service cannot answer', async () => {
    const unknown = await call(inv.service.app, 'GET', '/api/v1/inbound/stock/card/FFFF000000000000', inbound.token);
    expect(unknown.statusCode).toBe(404);
    expect(unknown.json()).toMatchObject({ code: 'NOT_FOUND', msg: expect.stringContaining('FFFF000000000000') });
    expect((await call(inv.service.app, 'GET', '/api/v1/stock/card/FFFF000000000000', inbound.token)).statusCode).toBe(404);

    const sales = await inv.user('SALES', 'ALPHA');
    expect((await call(inv.service.app, 'GET', '/api/v1/inbound/stock/card/FFFF000000000000', sales.token)).statusCode).toBe(403);
    expect((await call(inv.service.app, 'GET', '/api/v1/inbound/stock/card/has%20space', inbound.token)).statusCode).toBe(400);

    const config = inv.service.deps.config;
    const saved = { ...config };
    const cases: Array<[Partial<typeof config>, string]> = [
      [{ trackingUrl: undefined }, 'not_configured'],
      [{ trackingWebhookKey: undefined }, 'not_configured'],
      [{ trackingWebhookKey: 'wrong-key' }, 'rejected'],
      [{ trackingUrl: 'http://127.0.0.1:9' }, 'unreachable'],
    ];
    try {
      for (const [change, reason] of cases) {
        Object.assign(config, saved, change);
        const res = await call(inv.service.app, 'GET', '/api/v1/inbound/stock/card/FFFF000000000000', inbound.token);
        expect(res.statusCode, reason).toBe(503);
        expect(res.json()).toMatchObject({ code: 'UPSTREAM_UNAVAILABLE', reason, msg: expect.any(String) });
      }
    } finally {
      Object.assign(config, saved);
    }
  });
});

/** Both services on databases that outlive them: PGlite folders in a temp dir, or PostgreSQL databases. */
describe('restarts', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wms-e2e-'));
  let trackingDb: { url: string; drop: () => Promise<void> };
  let inventoryDb: { url: string; drop: () => Promise<void> };
  let tracking: TrackingApp | undefined;
  let inventory: InventoryApp | undefined;
  let port = 0;

  beforeAll(async () => {
    trackingDb = usingPostgres() ? await createTestDatabase('e2e_trk') : { url: join(dir, 'tracking'), drop: async () => undefined };
    inventoryDb = usingPostgres() ? await createTestDatabase('e2e_inv') : { url: join(dir, 'inventory'), drop: async () => undefined };
  });
  afterAll(async () => {
    await inventory?.close();
    await tracking?.close();
    await trackingDb.drop();
    await inventoryDb.drop();
    rmSync(dir, { recursive: true, force: true });
  });

  async function startTracking() {
    tracking = await buildTrackingApp(trackingConfig(trackingDb.url, { webhookApiKey: KEY }));
    const address = await tracking.app.listen({ host: '127.0.0.1', port });
    port = Number(new URL(address).port);
  }
  async function startInventory() {
    inventory = await buildInventoryApp(inventoryConfig(inventoryDb.url, { trackingUrl: `http://127.0.0.1:${port}`, trackingWebhookKey: KEY }), { dispatcher: FAST });
  }
  const trackingDatabase = (): Database => tracking!.deps.database;

  it('delivers every notification exactly once across a stopped tracking service and a restarted inventory service', async () => {
    await startTracking();
    await startInventory();
    const trkToken = await loginToken(tracking!.app);
    const invToken = await loginToken(inventory!.app);
    const serials: string[] = [];
    for (let i = 0; i < 5; i++) serials.push(await awaitingProduct(tracking!.app, trkToken, '智能控制器'));
    await ok(inventory!.app, 'POST', '/api/v1/users', invToken, { username: 'alpha_keeper', password: 'password-1', name: '库管', role: 'INBOUND', company_name: 'ALPHA' }, 201);
    const material = await ok(inventory!.app, 'POST', '/api/v1/inbound/base', invToken, { name: '智能控制器', category: 'ALPHA/成品/控制器', company_name: 'ALPHA' }, 201);
    const stockInSerial = (serial: string) =>
      ok(inventory!.app, 'POST', '/api/v1/inbound/stock', invToken, { source_table: 'stock_product', base_id: material.id, in_quantity: 1, serial_number: serial, company_name: 'ALPHA' }, 201);
    const outbox = () =>
      inventory!.deps.database.read((q) =>
        queryRows<{ event_id: string; status: string; attempts: number; last_error: string | null }>(
          q,
          sql`select event_id::text, status, attempts, last_error from notification_outbox order by id`,
        ),
      );

    // delivered while both run
    await stockInSerial(serials[0]!);
    await until(outbox, (rows) => rows.every((row) => row.status === 'delivered'));

    // the tracking service stops: stock-ins wait, retrying
    await tracking!.close();
    await stockInSerial(serials[1]!);
    await stockInSerial(serials[2]!);
    const waiting = await until(outbox, (rows) => rows.slice(1).every((row) => row.attempts >= 1));
    expect(waiting.slice(1)).toEqual([
      expect.objectContaining({ status: 'pending', last_error: expect.stringContaining('网络错误') }),
      expect.objectContaining({ status: 'pending', last_error: expect.stringContaining('网络错误') }),
    ]);

    // the inventory service restarts too, with messages still pending; a stock-in happens meanwhile
    await inventory!.close();
    await startTracking();
    await startInventory();
    await stockInSerial(serials[3]!);
    await stockInSerial(serials[4]!);
    const rows = await until(outbox, (all) => all.length === 5 && all.every((row) => row.status === 'delivered'));

    for (const serial of serials) expect(await productStatus(tracking!.app, trkToken, serial)).toBe('已入库');
    const processed = await trackingDatabase().read((q) =>
      queryRows<{ event_id: string; n: number; audits: number }>(q, sql`select e.event_id, count(*)::int as n,
          (select count(*)::int from audit_logs a where a.table_name = 'integration_events' and a.target_id = e.event_id) as audits
        from integration_events e group by e.event_id`),
    );
    expect(processed.map((row) => row.event_id).sort()).toEqual(rows.map((row) => row.event_id).sort());
    expect(processed.every((row) => row.n === 1 && row.audits === 1)).toBe(true);

    // a delivery whose answer was lost (sent again): the tracking service recognises it, nothing changes
    const auditsBefore = await trackingDatabase().read((q) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from audit_logs`));
    await inventory!.deps.database.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`update notification_outbox set status = 'pending', delivered_at = null, next_attempt_at = now() where event_id = ${rows[0]!.event_id}`),
    );
    await until(outbox, (all) => all.every((row) => row.status === 'delivered'));
    const auditsAfter = await trackingDatabase().read((q) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from audit_logs`));
    expect(auditsAfter[0]!.n).toBe(auditsBefore[0]!.n);
    const events = await trackingDatabase().read((q) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from integration_events`));
    expect(events[0]!.n).toBe(5);
  }, 240_000);
});
