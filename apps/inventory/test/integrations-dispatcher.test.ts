import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { enqueueNotification } from '../src/modules/notifications/outbox.js';
import { announceOutboxMessages } from '../src/modules/notifications/outbox-signal.js';
import { DEFAULT_DISPATCHER_SETTINGS, OutboxDispatcher } from '../src/modules/integrations/outbox-dispatcher.js';
import { outcomeOf, retryDelayMs } from '../src/modules/integrations/delivery-policy.js';
import { createMaterial, queryRows, stockIn } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import { approveOk, submitOk } from './outbound-fixtures.js';
import { eventually } from './returns-fixtures.js';
import { startFakeTracking, type FakeTracking } from './support/fake-tracking.js';

const KEY = 'inventory-to-tracking-key';
const SETTINGS = { intervalMs: 40, retryBaseMs: 30, retryMaxMs: 120, timeoutMs: 2000 };
const QUIET = { warn: () => undefined, error: () => undefined };

let t: TestInventory;
let fake: FakeTracking;
let inbound: TestUser;
let mgr: TestUser;
let supervisor: TestUser;

beforeAll(async () => {
  fake = await startFakeTracking();
  t = await buildTestInventory({ config: { trackingUrl: fake.url, trackingWebhookKey: KEY }, dispatcher: SETTINGS });
  inbound = await t.user('INBOUND', 'ALPHA');
  mgr = await t.user('WAREHOUSE_MGR', 'ALPHA');
  supervisor = await t.user('SUPERVISOR', 'ALPHA');
});
afterAll(async () => {
  await t.close();
  await fake.close();
});
beforeEach(() => {
  fake.fallback = 200;
  fake.delayMs = 0;
});

interface OutboxRow {
  id: number;
  event_id: string;
  kind: string;
  payload: Record<string, unknown>;
  status: string;
  attempts: number;
  last_error: string | null;
  delivered_at: string | null;
}

const outboxRow = async (eventId: string) =>
  (
    await queryRows<OutboxRow>(
      t,
      sql`select id::int, event_id::text, kind, payload, status, attempts, last_error, delivered_at from notification_outbox where event_id = ${eventId}`,
    )
  )[0]!;
const latestOutboxRow = async () =>
  (
    await queryRows<OutboxRow>(
      t,
      sql`select id::int, event_id::text, kind, payload, status, attempts, last_error, delivered_at from notification_outbox order by id desc limit 1`,
    )
  )[0]!;
const callsFor = (eventId: string) => fake.calls.filter((call) => call.body?.event_id === eventId);
const settle = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** A stock-in of one finished product through the API; answers its outbox message. */
async function stockInProduct(serial = `SN-${Math.random().toString(36).slice(2, 10).toUpperCase()}`) {
  const material = await createMaterial(t, mgr.token, { category: 'ALPHA/成品/控制器' });
  await stockIn(t, inbound.token, { source_table: 'stock_product', base_id: material.id, in_quantity: 1, serial_number: serial });
  return latestOutboxRow();
}

const delivered = (eventId: string, timeoutMs = 4000) => eventually(() => outboxRow(eventId), (row) => row.status !== 'pending', timeoutMs);

describe('delivery after commit', () => {
  it('POSTs a stock-in to the receiver with the webhook key and the payload, and marks it delivered', async () => {
    const message = await stockInProduct('SN-DELIVER-1');
    const row = await delivered(message.event_id);
    expect(row).toMatchObject({ status: 'delivered', attempts: 1, last_error: null, delivered_at: expect.any(String) });
    const calls = callsFor(message.event_id);
    expect(calls).toHaveLength(1);
    expect(calls[0]).toMatchObject({ method: 'POST', path: '/api/v1/integrations/inventory/stock-in', apiKey: KEY, body: message.payload });
    expect(calls[0]!.body).toMatchObject({ company_name: 'ALPHA', operator: inbound.username, serial_number: 'SN-DELIVER-1' });
  });

  it('POSTs an executed outbound to the outbound receiver', async () => {
    const material = await createMaterial(t, mgr.token, { category: 'ALPHA/成品/控制器' });
    const row = await stockIn(t, inbound.token, { source_table: 'stock_product', base_id: material.id, in_quantity: 1, serial_number: 'SN-SHIP-1' });
    const sales = await t.user('SALES', 'ALPHA');
    const op = await t.user('OUTBOUND', 'ALPHA');
    const request = await submitOk(t, sales.token, [{ base_id: material.id, quantity: 1 }], { outbound_type: 'SALES' });
    await approveOk(t, mgr.token, request.id);
    const executed = await t.request('POST', '/api/v1/outbound', { token: op.token, body: { request_id: request.id, lines: [{ barcode: row.sku, quantity: 1 }] } });
    expect(executed.statusCode, executed.body).toBe(201);

    const message = await latestOutboxRow();
    expect(message.kind).toBe('outbound');
    expect((await delivered(message.event_id)).status).toBe('delivered');
    expect(callsFor(message.event_id)).toEqual([
      expect.objectContaining({ path: '/api/v1/integrations/inventory/outbound', apiKey: KEY, body: message.payload }),
    ]);
    expect(message.payload).toMatchObject({ operator: op.username, outbound_type: 'SALES', items: [expect.objectContaining({ serial_number: 'SN-SHIP-1' })] });
  });

  it('sends nothing before the commit and nothing for a rolled-back change', async () => {
    const { database } = t.service.deps;
    let eventId = '';
    const committed = database.transaction({ actor: 'test' }, async (tx) => {
      eventId = await enqueueNotification(tx, 'stock-in', { company_name: 'ALPHA', serial_number: 'SN-LATER' });
      announceOutboxMessages();
      await settle(300);
      expect(callsFor(eventId)).toEqual([]);
    });
    await committed;
    expect((await delivered(eventId)).status).toBe('delivered');

    let rolledBack = '';
    await expect(
      database.transaction({ actor: 'test' }, async (tx) => {
        rolledBack = await enqueueNotification(tx, 'stock-in', { company_name: 'ALPHA', serial_number: 'SN-NEVER' });
        throw new Error('roll back');
      }),
    ).rejects.toThrow('roll back');
    announceOutboxMessages();

    const callsBefore = fake.calls.length;
    const refused = await t.request('POST', '/api/v1/inbound/stock', {
      token: inbound.token,
      body: { source_table: 'stock_product', base_id: 99999999, in_quantity: 1, serial_number: 'SN-REFUSED' },
    });
    expect(refused.statusCode).toBe(404);
    await settle(300);
    expect(callsFor(rolledBack)).toEqual([]);
    expect(fake.calls.slice(callsBefore).filter((call) => call.body?.serial_number === 'SN-REFUSED')).toEqual([]);
    expect(await queryRows(t, sql`select 1 from notification_outbox where event_id = ${rolledBack}`)).toEqual([]);
  });

  it('leaves messages pending, untried, while TRACKING_URL is unset, and delivers them once it is set', async () => {
    const config = t.service.deps.config;
    config.trackingUrl = undefined;
    let message: OutboxRow;
    try {
      message = await stockInProduct();
      await settle(250);
      expect(await outboxRow(message.event_id)).toMatchObject({ status: 'pending', attempts: 0, last_error: null });
      expect(callsFor(message.event_id)).toEqual([]);
    } finally {
      config.trackingUrl = fake.url;
    }
    expect(await delivered(message.event_id)).toMatchObject({ status: 'delivered', attempts: 1 });
  });
});

describe('retries', () => {
  it('wait 2 s, 4 s, 8 s … after each failed attempt by default, at most 10 minutes; only 2xx delivers, only 4xx fails', () => {
    const backoff = { baseMs: DEFAULT_DISPATCHER_SETTINGS.retryBaseMs, maxMs: DEFAULT_DISPATCHER_SETTINGS.retryMaxMs };
    expect([1, 2, 3, 4, 9, 12].map((attempts) => retryDelayMs(attempts, backoff))).toEqual([2000, 4000, 8000, 16000, 512000, 600000]);
    expect(outcomeOf({ status: 204, body: '' })).toEqual({ kind: 'delivered' });
    expect(outcomeOf({ status: 401, body: 'no' })).toMatchObject({ kind: 'failed' });
    expect(outcomeOf({ status: 503, body: '' })).toMatchObject({ kind: 'retry' });
    expect(outcomeOf({ status: 429, body: '' })).toMatchObject({ kind: 'failed' }); // contract §8: only network errors and 5xx are retried
    expect(outcomeOf({ status: 302, body: '' })).toMatchObject({ kind: 'retry' });
    expect(outcomeOf({ networkError: 'ECONNREFUSED' })).toMatchObject({ kind: 'retry', error: expect.stringContaining('ECONNREFUSED') });
  });

  it('retries 5xx answers with growing waits, then delivers', async () => {
    fake.script(503, 500);
    const message = await stockInProduct();
    const row = await delivered(message.event_id);
    expect(row).toMatchObject({ status: 'delivered', attempts: 3, last_error: null });
    const times = callsFor(message.event_id).map((call) => call.at);
    expect(times).toHaveLength(3);
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(SETTINGS.retryBaseMs - 5);
    expect(times[2]! - times[1]!).toBeGreaterThanOrEqual(2 * SETTINGS.retryBaseMs - 5);
  });

  it('retries network errors (connection cut) and shows the error while it waits', async () => {
    fake.script('drop', 'drop');
    fake.delayMs = 0;
    const message = await stockInProduct();
    const waiting = await eventually(() => outboxRow(message.event_id), (row) => row.attempts >= 1);
    if (waiting.status === 'pending') expect(waiting.last_error).toMatch(/网络错误/);
    expect(await delivered(message.event_id)).toMatchObject({ status: 'delivered', attempts: 3 });
    expect(callsFor(message.event_id)).toHaveLength(3);
  });

  it.each([422, 429])('fails a message at once on a %i answer and tries it no more', async (status) => {
    fake.script(status);
    const message = await stockInProduct();
    const row = await delivered(message.event_id);
    expect(row).toMatchObject({ status: 'failed', attempts: 1, last_error: expect.stringMatching(new RegExp(`^HTTP ${status}`)) });
    await settle(200);
    expect(callsFor(message.event_id)).toHaveLength(1);
  });

  it('gives up after 10 attempts of 5xx and marks the message failed', async () => {
    fake.fallback = 502;
    const message = await stockInProduct();
    const row = await delivered(message.event_id, 8000);
    expect(row).toMatchObject({ status: 'failed', attempts: 10, last_error: expect.stringMatching(/^HTTP 502/) });
    fake.fallback = 200;
    await settle(200);
    expect(callsFor(message.event_id)).toHaveLength(10);
  });
});

describe('GET /integrations/outbox and retry (SUPER_ADMIN)', () => {
  it('lists failed messages with attempts and last_error, paged; others are refused', async () => {
    fake.script(400);
    const message = await stockInProduct();
    await delivered(message.event_id);

    const failed = await t.request('GET', '/api/v1/integrations/outbox?status=failed&limit=200', { token: t.adminToken });
    expect(failed.statusCode).toBe(200);
    const page = failed.json();
    expect(page).toMatchObject({ page: 1, limit: 200, total: expect.any(Number) });
    expect(page.items.every((item: { status: string }) => item.status === 'failed')).toBe(true);
    expect(page.items).toContainEqual(
      expect.objectContaining({
        event_id: message.event_id,
        kind: 'stock-in',
        status: 'failed',
        attempts: 1,
        last_error: expect.stringMatching(/^HTTP 400/),
        next_attempt_at: null,
        payload: message.payload,
      }),
    );
    const delivered200 = await t.request('GET', '/api/v1/integrations/outbox?status=delivered&kind=stock-in&limit=1', { token: t.adminToken });
    expect(delivered200.json()).toMatchObject({ limit: 1, items: [expect.objectContaining({ status: 'delivered', kind: 'stock-in' })] });
    const one = await t.request('GET', `/api/v1/integrations/outbox?event_id=${message.event_id}`, { token: t.adminToken });
    expect(one.json()).toMatchObject({ total: 1, items: [expect.objectContaining({ event_id: message.event_id })] });
    // keyword on anything the message says (here its serial), dates on when it was written (contract §8)
    const serial = String(message.payload.serial_number);
    const byKeyword = await t.request('GET', `/api/v1/integrations/outbox?keyword=${encodeURIComponent(serial.toLowerCase())}`, { token: t.adminToken });
    expect(byKeyword.json().items.map((item: { event_id: string }) => item.event_id)).toEqual([message.event_id]);
    expect((await t.request('GET', '/api/v1/integrations/outbox?end_date=2020-01-01', { token: t.adminToken })).json().total).toBe(0);
    const badDate = await t.request('GET', '/api/v1/integrations/outbox?end_date=2025-13-01', { token: t.adminToken });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'end_date' });

    for (const token of [supervisor.token, mgr.token, inbound.token]) {
      const refused = await t.request('GET', '/api/v1/integrations/outbox?status=failed', { token });
      expect(refused.statusCode).toBe(403);
      expect(refused.json()).toMatchObject({ code: 'FORBIDDEN' });
    }
    expect((await t.request('GET', '/api/v1/integrations/outbox')).statusCode).toBe(401);
    const bad = await t.request('GET', '/api/v1/integrations/outbox?status=lost', { token: t.adminToken });
    expect(bad.statusCode).toBe(400);
    expect(bad.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: expect.stringContaining('status') });
  });

  it('puts a failed message back to pending with fresh attempts; it is then delivered', async () => {
    fake.script(409);
    const message = await stockInProduct();
    expect((await delivered(message.event_id)).status).toBe('failed');

    expect((await t.request('POST', `/api/v1/integrations/outbox/${message.id}/retry`, { token: supervisor.token })).statusCode).toBe(403);
    const retried = await t.request('POST', `/api/v1/integrations/outbox/${message.id}/retry`, { token: t.adminToken });
    expect(retried.statusCode, retried.body).toBe(200);
    expect(retried.json()).toMatchObject({ id: message.id, status: 'pending', attempts: 0, last_error: expect.stringMatching(/^HTTP 409/) });
    expect(await delivered(message.event_id)).toMatchObject({ status: 'delivered', attempts: 1, last_error: null });

    const again = await t.request('POST', `/api/v1/integrations/outbox/${message.id}/retry`, { token: t.adminToken });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status: 'delivered' });
    const unknown = await t.request('POST', '/api/v1/integrations/outbox/99999999/retry', { token: t.adminToken });
    expect(unknown.statusCode).toBe(404);
  });
});

describe('several dispatchers', () => {
  it('never deliver one message twice', async () => {
    const { database, config } = t.service.deps;
    fake.delayMs = 5;
    const others = [1, 2, 3].map(() => new OutboxDispatcher(database, config, { ...SETTINGS, intervalMs: 10 }, QUIET));
    others.forEach((dispatcher) => dispatcher.start());
    try {
      const eventIds = await database.transaction({ actor: 'test' }, async (tx) => {
        const ids: string[] = [];
        for (let i = 0; i < 30; i++) ids.push(await enqueueNotification(tx, 'stock-in', { company_name: 'ALPHA', serial_number: `SN-MANY-${i}` }));
        return ids;
      });
      announceOutboxMessages();
      await eventually(
        () => queryRows<{ n: number }>(t, sql`select count(*)::int as n from notification_outbox where status = 'pending'`),
        (rows) => rows[0]!.n === 0,
        8000,
      );
      for (const eventId of eventIds) {
        expect(callsFor(eventId)).toHaveLength(1);
        expect(await outboxRow(eventId)).toMatchObject({ status: 'delivered', attempts: 1 });
      }
    } finally {
      await Promise.all(others.map((dispatcher) => dispatcher.stop()));
    }
  });

  it('stop() cancels a delivery in flight and leaves its message pending with no attempt counted', async () => {
    const { database, config } = t.service.deps;
    const solo = new OutboxDispatcher(database, { ...config }, { ...SETTINGS, intervalMs: 60_000 }, QUIET);
    const paused = { ...config };
    config.trackingUrl = undefined; // the app's own dispatcher stays away from this message
    try {
      fake.delayMs = 3000;
      const eventId = await database.transaction({ actor: 'test' }, (tx) => enqueueNotification(tx, 'stock-in', { company_name: 'ALPHA' }));
      solo.start();
      solo.wake();
      await eventually(async () => callsFor(eventId).length, (n) => n === 1);
      const started = Date.now();
      await solo.stop();
      expect(Date.now() - started).toBeLessThan(1000);
      expect(await outboxRow(eventId)).toMatchObject({ status: 'pending', attempts: 0 });
      const [due] = await queryRows<{ due: boolean }>(t, sql`select next_attempt_at <= now() as due from notification_outbox where event_id = ${eventId}`);
      expect(due!.due).toBe(true);
    } finally {
      config.trackingUrl = paused.trackingUrl;
      fake.delayMs = 0;
    }
  });
});
