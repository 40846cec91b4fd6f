import { randomUUID } from 'node:crypto';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@wms/platform';
import { buildTestTracking, type TestTracking } from './helpers.js';

const WEBHOOK_KEY = 'webhook-key-for-idempotency-tests';
const GROUPS = '/api/v1/groups';

let t: TestTracking;
beforeAll(async () => {
  t = await buildTestTracking({ config: { webhookApiKey: WEBHOOK_KEY } });
});
afterAll(() => t.close());

let keyCounter = 0;
const newKey = () => `trk-${++keyCounter}-${randomUUID()}`;
const withKey = (method: string, url: string, key: string, options: { body?: unknown; headers?: Record<string, string> } = {}) =>
  t.request(method, url, { token: options.headers ? undefined : t.adminToken, body: options.body, headers: { 'idempotency-key': key, ...options.headers } });
const replayed = (response: { headers: Record<string, unknown> }) => response.headers['idempotency-replayed'] === 'true';

async function count(query: ReturnType<typeof sql>): Promise<number> {
  const [row] = await t.service.deps.database.read((q) => queryRows<{ n: number }>(q, query));
  return row!.n;
}

describe('Idempotency-Key in the tracking service', () => {
  it('creates a group once for a repeated key, refuses the key for another body, and replays a 204 delete', async () => {
    const name = `重试组-${keyCounter}`;
    const key = newKey();
    const first = await withKey('POST', GROUPS, key, { body: { name } });
    const again = await withKey('POST', GROUPS, key, { body: { name } });
    expect(first.statusCode).toBe(201);
    expect(again.statusCode).toBe(201);
    expect(again.body).toBe(first.body);
    expect(replayed(again)).toBe(true);
    expect(await count(sql`select count(*)::int as n from business_groups where name = ${name}`)).toBe(1);

    const other = await withKey('POST', GROUPS, key, { body: { name: `${name}-另一个` } });
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED' });
    expect(await count(sql`select count(*)::int as n from business_groups where name = ${`${name}-另一个`}`)).toBe(0);

    const deleteKey = newKey();
    const deleted = await withKey('DELETE', `${GROUPS}/${first.json().id}`, deleteKey);
    const deletedAgain = await withKey('DELETE', `${GROUPS}/${first.json().id}`, deleteKey);
    expect([deleted.statusCode, deletedAgain.statusCode]).toEqual([204, 204]);
    expect(replayed(deletedAgain)).toBe(true);
    expect((await t.request('DELETE', `${GROUPS}/${first.json().id}`, { token: t.adminToken })).statusCode).toBe(404);
  });

  it('refuses a malformed key as a validation failure (422 here) and writes nothing', async () => {
    const name = `坏键组-${newKey()}`;
    const res = await withKey('POST', GROUPS, 'x'.repeat(256), { body: { name } });
    expect(res.statusCode).toBe(422);
    expect(res.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'Idempotency-Key' });
    expect(await count(sql`select count(*)::int as n from business_groups where name = ${name}`)).toBe(0);
  });

  it('scopes an X-API-Key caller: a repeated notification with the same key is answered from the first call', async () => {
    const notice = {
      event_id: randomUUID(),
      company_name: 'ALPHA',
      operator: 'alpha_in',
      source_table: 'stock_product',
      stock_id: 17,
      sku: `P-${randomUUID().slice(0, 8)}`,
      serial_number: null,
      base_id: 501,
      material_name: '智能控制器',
      category: 'ALPHA/成品/控制器',
      quantity: 1,
      in_date: '2025-04-01',
    };
    const key = newKey();
    const headers = { 'x-api-key': WEBHOOK_KEY };
    const first = await withKey('POST', '/api/v1/integrations/inventory/stock-in', key, { body: notice, headers });
    const again = await withKey('POST', '/api/v1/integrations/inventory/stock-in', key, { body: notice, headers });
    expect(first.statusCode).toBe(200);
    expect(again.body).toBe(first.body);
    expect(replayed(again)).toBe(true);
    expect(await count(sql`select count(*)::int as n from integration_events where event_id = ${notice.event_id}`)).toBe(1);
  });
});
