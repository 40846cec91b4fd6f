import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { IDEMPOTENCY_TTL_MS, idempotencyKeyFor, MemoryLockStore, queryRows as queryDatabase, type Database } from '@wms/platform';
import { createTestDatabase, createTestUser, testClient, usingPostgres, type TestClient } from '@wms/platform/testing';
import { buildInventoryApp, type InventoryApp } from '../src/app.js';
import { queryRows, stockIn } from './fixtures.js';
import { ADMIN, buildTestInventory, testConfig, type TestInventory } from './helpers.js';
import { countRows, materialWithStock, outboundWorld, rowState, type OutboundWorld } from './outbound-fixtures.js';

const SUBMIT = '/api/v1/outbound/request';
let keyCounter = 0;
const newKey = () => `retry-${++keyCounter}-${Math.random().toString(36).slice(2, 10)}`;
const order = (baseId: number, quantity = 1, remark = '手持机重试') => ({ outbound_type: 'USE', items: [{ base_id: baseId, quantity }], remark });

function withKey(client: TestClient, method: string, url: string, token: string | undefined, key: string, body?: unknown) {
  return client.request(method, url, { token, body, headers: { 'idempotency-key': key } });
}

const replayed = (response: { headers: Record<string, unknown> }) => response.headers['idempotency-replayed'] === 'true';

async function storedKeys(database: Database, key: string): Promise<number> {
  const [row] = await database.read((q) => queryDatabase<{ n: number }>(q, sql`select count(*)::int as n from idempotency_keys where key = ${key}`));
  return row!.n;
}

describe('Idempotency-Key on one instance', () => {
  let t: TestInventory;
  let w: OutboundWorld;
  const locks = new MemoryLockStore();
  beforeAll(async () => {
    t = await buildTestInventory({ locks });
    w = await outboundWorld(t);
  });
  afterAll(() => t.close());

  it('answers a repeat with the first answer (status, body, content type) and reserves once', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const before = await countRows(t, 'outbound_requests');
    const key = newKey();
    const first = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 3));
    expect(first.statusCode).toBe(201);
    expect(replayed(first)).toBe(false);

    const again = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 3));
    // the same JSON with its fields in another order is the same request
    const reordered = await withKey(t, 'POST', SUBMIT, w.sales.token, key, { remark: '手持机重试', items: [{ quantity: 3, base_id: material.id }], outbound_type: 'USE' });
    for (const repeat of [again, reordered]) {
      expect(repeat.statusCode).toBe(201);
      expect(repeat.body).toBe(first.body);
      expect(repeat.headers['content-type']).toBe(first.headers['content-type']);
      expect(replayed(repeat)).toBe(true);
    }
    expect(await countRows(t, 'outbound_requests')).toBe(before + 1);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ stock: 10, available: 7 });
  });

  it('refuses the same key with a different body or path: 422 IDEMPOTENCY_KEY_REUSED, nothing written', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const key = newKey();
    expect((await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 1))).statusCode).toBe(201);
    const before = await countRows(t, 'outbound_requests');

    const other = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 2));
    expect(other.statusCode).toBe(422);
    expect(other.json()).toMatchObject({ code: 'IDEMPOTENCY_KEY_REUSED', field: 'Idempotency-Key' });
    const otherPath = await withKey(t, 'POST', '/api/v1/borrow/request', w.sales.token, key, { items: [{ base_id: material.id, quantity: 1 }] });
    expect(otherPath.statusCode).toBe(422);
    expect(await countRows(t, 'outbound_requests')).toBe(before);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 9 });
  });

  it('scopes a key to its caller: another user with the same key and body gets their own request', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const key = newKey();
    const mine = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 2));
    const theirs = await withKey(t, 'POST', SUBMIT, w.sales2.token, key, order(material.id, 2));
    expect([mine.statusCode, theirs.statusCode]).toEqual([201, 201]);
    expect(theirs.json().id).not.toBe(mine.json().id);
    expect(replayed(theirs)).toBe(false);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 6 });
  });

  it('lets one of three concurrent duplicates do the work; the others get its answer or 409 IDEMPOTENCY_IN_PROGRESS', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const before = await countRows(t, 'outbound_requests');
    const key = newKey();
    const responses = await Promise.all([1, 2, 3].map(() => withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 4))));

    const fresh = responses.filter((response) => response.statusCode === 201 && !replayed(response));
    expect(fresh).toHaveLength(1);
    for (const other of responses.filter((response) => response !== fresh[0])) {
      if (other.statusCode === 409) expect(other.json().code).toBe('IDEMPOTENCY_IN_PROGRESS');
      else expect(other.body).toBe(fresh[0]!.body);
    }
    expect(await countRows(t, 'outbound_requests')).toBe(before + 1);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 6 });
  });

  it('replays a business refusal; a body refused by validation never takes the key', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [1]);
    const key = newKey();
    const short = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 5));
    expect(short.statusCode).toBe(400);
    expect(short.json().code).toBe('STOCK_SHORTAGE');
    await stockIn(t, t.adminToken, { base_id: material.id, in_quantity: 10, company_name: 'ALPHA' }); // a rerun would now succeed
    const repeat = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 5));
    expect(repeat.statusCode).toBe(400);
    expect(repeat.body).toBe(short.body);
    expect(replayed(repeat)).toBe(true);

    const fixKey = newKey();
    const invalid = await withKey(t, 'POST', SUBMIT, w.sales.token, fixKey, { outbound_type: 'USE', items: [] });
    expect(invalid.statusCode).toBe(400);
    expect(invalid.json().code).toBe('VALIDATION_FAILED');
    const fixed = await withKey(t, 'POST', SUBMIT, w.sales.token, fixKey, order(material.id, 1));
    expect(fixed.statusCode).toBe(201);
    expect(replayed(fixed)).toBe(false);
  });

  it('does not replay an answer older than 24 hours: the call runs again', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const key = newKey();
    const first = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 1));
    await queryRows(t, sql`update idempotency_keys set created_at = now() - interval '25 hours', expires_at = now() - interval '1 hour' where key = ${key}`);

    const later = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 1));
    expect(later.statusCode).toBe(201);
    expect(replayed(later)).toBe(false);
    expect(later.json().id).not.toBe(first.json().id);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 8 });
  });

  it('answers 409 while the first call runs, and takes over a claim whose instance died (lease past)', async () => {
    const { material, rows } = await materialWithStock(t, 'ALPHA', [10]);
    const key = newKey();
    const first = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 1));
    // as if the first call were still running on another instance
    await queryRows(t, sql`update idempotency_keys set status_code = null, body = null, claim = gen_random_uuid(),
      lease_until = now() + interval '1 minute' where key = ${key}`);
    const waiting = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 1));
    expect(waiting.statusCode).toBe(409);
    expect(waiting.json().code).toBe('IDEMPOTENCY_IN_PROGRESS');
    expect(waiting.headers['retry-after']).toBe('1');

    // that instance was killed: once its lease is past, the retry runs the call
    await queryRows(t, sql`update idempotency_keys set lease_until = now() - interval '1 second' where key = ${key}`);
    const takeover = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 1));
    expect(takeover.statusCode).toBe(201);
    expect(takeover.json().id).not.toBe(first.json().id);
    const repeat = await withKey(t, 'POST', SUBMIT, w.sales.token, key, order(material.id, 1));
    expect(repeat.body).toBe(takeover.body);
    expect(await rowState(t, rows[0]!.id)).toMatchObject({ available: 8 });
  });

  it('keeps the 5-second lock: without the header 409 LOCK_HELD as before; with it too, and the key stays free', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [10]);
    const body = order(material.id, 1, '锁测试');
    const lockKey = idempotencyKeyFor(w.sales.id, 'POST', SUBMIT, body);
    const held = await locks.acquire(lockKey, IDEMPOTENCY_TTL_MS);
    expect(held).toHaveProperty('token');
    const before = await countRows(t, 'outbound_requests');

    const plain = await t.request('POST', SUBMIT, { token: w.sales.token, body });
    expect(plain.statusCode).toBe(409);
    expect(plain.json().code).toBe('LOCK_HELD');
    const key = newKey();
    const keyed = await withKey(t, 'POST', SUBMIT, w.sales.token, key, body);
    expect(keyed.statusCode).toBe(409);
    expect(keyed.json().code).toBe('LOCK_HELD');
    expect(await countRows(t, 'outbound_requests')).toBe(before);

    await locks.release(lockKey, (held as { token: string }).token);
    const retried = await withKey(t, 'POST', SUBMIT, w.sales.token, key, body);
    expect(retried.statusCode).toBe(201);
    expect(replayed(retried)).toBe(false);
  });

  it('answers a caller deactivated or stripped of the code since with 401 / 403, never a replay or 409 (contract §3)', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [10]);
    const applicant = await t.user('SALES', 'ALPHA');
    const patch = async (body: Record<string, unknown>) =>
      expect((await t.request('PATCH', `/api/v1/users/${applicant.id}`, { token: t.adminToken, body })).statusCode).toBe(200);
    const key = newKey();
    const body = order(material.id, 1, '停用后重放');
    expect((await withKey(t, 'POST', SUBMIT, applicant.token, key, body)).statusCode).toBe(201);

    await patch({ active: false });
    expect((await withKey(t, 'POST', SUBMIT, applicant.token, key, body)).statusCode).toBe(401);
    await patch({ active: true });
    await patch({ role: 'INBOUND' });
    expect((await withKey(t, 'POST', SUBMIT, applicant.token, key, body)).statusCode).toBe(403);
    await patch({ role: 'SALES' });
    expect(replayed(await withKey(t, 'POST', SUBMIT, applicant.token, key, body))).toBe(true);

    // a held lock answers without the handler as well
    const fresh = order(material.id, 1, '停用后锁');
    const lockKey = idempotencyKeyFor(applicant.id, 'POST', SUBMIT, fresh);
    const held = await locks.acquire(lockKey, IDEMPOTENCY_TTL_MS);
    await patch({ active: false });
    expect((await t.request('POST', SUBMIT, { token: applicant.token, body: fresh })).statusCode).toBe(401);
    await locks.release(lockKey, (held as { token: string }).token);
  });

  it('never stores 401 or 403, refuses a malformed key, and ignores the header on GET and public routes', async () => {
    const { material } = await materialWithStock(t, 'ALPHA', [10]);
    const key = newKey();
    expect((await withKey(t, 'POST', SUBMIT, undefined, key, order(material.id))).statusCode).toBe(401);
    expect((await withKey(t, 'POST', SUBMIT, w.inbound.token, key, order(material.id))).statusCode).toBe(403);
    expect((await withKey(t, 'GET', SUBMIT, w.sales.token, '')).statusCode).toBe(200);
    expect((await t.request('POST', '/api/v1/auth/login', { body: { username: ADMIN.username, password: ADMIN.password }, headers: { 'idempotency-key': key } })).statusCode).toBe(200);
    expect(await storedKeys(t.service.deps.database, key)).toBe(0);

    const before = await countRows(t, 'outbound_requests');
    for (const bad of ['', 'x'.repeat(256)]) {
      const refused = await withKey(t, 'POST', SUBMIT, w.sales.token, bad, order(material.id));
      expect(refused.statusCode).toBe(400);
      expect(refused.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'Idempotency-Key' });
    }
    expect(await countRows(t, 'outbound_requests')).toBe(before);
    expect((await withKey(t, 'POST', SUBMIT, w.sales.token, `${'x'.repeat(253)} ~`, order(material.id))).statusCode).toBe(201);
  });
});

/** One database (a PostgreSQL database, or a PGlite folder) that several app instances open in turn or at once. */
async function sharedDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  if (usingPostgres()) return createTestDatabase('idem');
  const dir = mkdtempSync(join(tmpdir(), 'wms-idem-'));
  return { url: join(dir, 'inventory'), drop: async () => rmSync(dir, { recursive: true, force: true }) };
}

interface Instance extends TestClient {
  service: InventoryApp;
  adminToken: string;
}

async function instanceOn(url: string): Promise<Instance> {
  const service = await buildInventoryApp(testConfig(url), { dispatcher: { enabled: false } });
  const client = testClient(service.app);
  const adminToken = (await client.login(ADMIN.username, ADMIN.password)).json().token as string;
  return { service, adminToken, ...client };
}

/** A SALES user of ALPHA (the company exists through it). */
const alphaSales = (instance: Instance) =>
  createTestUser(instance, instance.adminToken, { username: `sales_${++keyCounter}_${Math.random().toString(36).slice(2, 6)}`, password: 'password-1', name: '重试', role: 'SALES', company_name: 'ALPHA' });

const countMaterials = async (database: Database, name: string) => {
  const [row] = await database.read((q) => queryDatabase<{ n: number }>(q, sql`select count(*)::int as n from materials where name = ${name}`));
  return row!.n;
};

describe('Idempotency-Key across restarts and instances', () => {
  let shared: { url: string; drop: () => Promise<void> };
  beforeAll(async () => {
    shared = await sharedDatabase();
  });
  afterAll(() => shared.drop());

  it('replays after the service restarts on the same database', async () => {
    const body = { name: `重启物料-${newKey()}`, category: 'ALPHA/电子/电阻', spec_model: 'R-1', unit: '个', company_name: 'ALPHA' };
    const key = newKey();
    const before = await instanceOn(shared.url);
    await alphaSales(before);
    const first = await withKey(before, 'POST', '/api/v1/inbound/base', before.adminToken, key, body);
    expect(first.statusCode, first.body).toBe(201);
    await before.service.close();

    const after = await instanceOn(shared.url);
    try {
      const repeat = await withKey(after, 'POST', '/api/v1/inbound/base', after.adminToken, key, body);
      expect(repeat.statusCode).toBe(201);
      expect(repeat.body).toBe(first.body);
      expect(replayed(repeat)).toBe(true);
      expect(await countMaterials(after.service.deps.database, body.name)).toBe(1);
    } finally {
      await after.service.close();
    }
  });

  it.skipIf(!usingPostgres())('commits exactly one submission when two instances get the same key at once (PostgreSQL)', async () => {
    const a = await instanceOn(shared.url);
    const b = await instanceOn(shared.url);
    try {
      const sales = await alphaSales(a);
      const material = (await a.request('POST', '/api/v1/inbound/base', {
        token: a.adminToken,
        body: { name: `双实例物料-${newKey()}`, category: 'ALPHA/电子/电阻', spec_model: 'R-2', unit: '个', company_name: 'ALPHA' },
      })).json() as { id: number };
      const stock = await a.request('POST', '/api/v1/inbound/stock', {
        token: a.adminToken,
        body: { base_id: material.id, source_table: 'stock_buy', in_quantity: 100, warehouse_location: 'A/01/01', company_name: 'ALPHA' },
      });
      expect(stock.statusCode).toBe(201);

      const rounds = 5;
      for (let round = 0; round < rounds; round++) {
        const key = newKey();
        const body = order(material.id, 1, `双实例 ${round}`);
        const responses = await Promise.all([a, b, a, b].map((instance) => withKey(instance, 'POST', SUBMIT, sales.token, key, body)));
        const fresh = responses.filter((response) => response.statusCode === 201 && !replayed(response));
        expect(fresh, responses.map((response) => response.body).join('\n')).toHaveLength(1);
        for (const other of responses.filter((response) => response !== fresh[0])) {
          if (other.statusCode === 409) expect(other.json().code).toBe('IDEMPOTENCY_IN_PROGRESS');
          else expect(other.body).toBe(fresh[0]!.body);
        }
      }
      const [row] = await a.service.deps.database.read((q) =>
        queryDatabase<{ n: number; available: string }>(q, sql`select (select count(*)::int from outbound_requests where applicant_id = ${sales.id}) as n,
          (select available_quantity::text from stock_rows where base_id = ${material.id}) as available`),
      );
      expect(row).toEqual({ n: rounds, available: String(100 - rounds) });
    } finally {
      await a.service.close();
      await b.service.close();
    }
  });
});
