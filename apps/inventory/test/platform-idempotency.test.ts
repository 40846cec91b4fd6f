import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { idempotencyKeyFor, IDEMPOTENCY_TTL_MS, MemoryLockStore, RedisLockStore, type LockStore } from '@wms/platform';
import { buildTestInventory, type TestInventory } from './helpers.js';

const PATH = '/api/v1/permissions/role/SALES';
const BODY = { permissions: ['outbound_selection', 'op_borrow_apply'] };

/** The guard's behaviour, the same on every store: 409 while held, released when the call ends. */
function describeLockOn(name: string, makeStore: () => LockStore, enabled = true) {
  describe.skipIf(!enabled)(`idempotency lock on the ${name} store`, () => {
    let t: TestInventory;
    let store: LockStore;
    beforeAll(async () => {
      store = makeStore();
      t = await buildTestInventory({ locks: store });
    });
    afterAll(() => t.close());

    it('answers 409 LOCK_HELD while the same user runs the same call, and writes nothing', async () => {
      const key = idempotencyKeyFor(1, 'PUT', PATH, BODY);
      const held = await store.acquire(key, IDEMPOTENCY_TTL_MS);
      expect(held).toHaveProperty('token');
      const before = (await t.request('GET', PATH, { token: t.adminToken })).json();
      const res = await t.request('PUT', PATH, { token: t.adminToken, body: BODY });
      expect(res.statusCode).toBe(409);
      expect(res.json()).toMatchObject({ code: 'LOCK_HELD' });
      expect((await t.request('GET', PATH, { token: t.adminToken })).json()).toEqual(before);

      await store.release(key, (held as { token: string }).token);
      expect((await t.request('PUT', PATH, { token: t.adminToken, body: BODY })).statusCode).toBe(200);
    });

    it('runs identical submissions sent at once only once: the others are 409 LOCK_HELD and write nothing', async () => {
      const manager = await t.user('WAREHOUSE_MGR', 'ALPHA');
      const created = await t.request('POST', '/api/v1/inbound/base', { token: manager.token, body: { name: '同时提交', category: 'ALPHA/锁' } });
      const body = { items: [{ base_id: created.json().id, quantity: 3 }] };
      const answers = await Promise.all([1, 2, 3, 4].map(() => t.request('POST', '/api/v1/purchase', { token: manager.token, body })));
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([201, 409, 409, 409]);
      expect(answers.filter((answer) => answer.statusCode === 409).map((answer) => answer.json().code)).toEqual(['LOCK_HELD', 'LOCK_HELD', 'LOCK_HELD']);
      const requests = (await t.request('GET', `/api/v1/purchase?limit=200&keyword=${encodeURIComponent('同时提交')}`, { token: manager.token })).json();
      expect(requests.total).toBe(1);
    });

    it('releases the lock when the call ends, so a repeat after completion goes through', async () => {
      expect((await t.request('PUT', PATH, { token: t.adminToken, body: BODY })).statusCode).toBe(200);
      expect((await t.request('PUT', PATH, { token: t.adminToken, body: BODY })).statusCode).toBe(200);
    });

    it('keys by body and user: a different body or another user is not blocked', async () => {
      const key = idempotencyKeyFor(1, 'PUT', PATH, BODY);
      const held = await store.acquire(key, IDEMPOTENCY_TTL_MS);
      const other = await t.request('PUT', PATH, { token: t.adminToken, body: { permissions: ['outbound_selection'] } });
      expect(other.statusCode).toBe(200);
      await store.release(key, (held as { token: string }).token);
    });

    it('checks the permission before the lock: a caller without it gets 403, not 409', async () => {
      const sales = await t.user('SALES', 'ALPHA');
      const key = idempotencyKeyFor(sales.id, 'PUT', PATH, BODY);
      const held = await store.acquire(key, IDEMPOTENCY_TTL_MS);
      const res = await t.request('PUT', PATH, { token: sales.token, body: BODY });
      expect(res.statusCode).toBe(403);
      await store.release(key, (held as { token: string }).token);
    });

    it('expires a lock that was never released', async () => {
      const key = `expiry-${Math.random()}`;
      expect(await store.acquire(key, 150)).toHaveProperty('token');
      expect(await store.acquire(key, 150)).toBe('held');
      await new Promise((resolve) => setTimeout(resolve, 250));
      expect(await store.acquire(key, 150)).toHaveProperty('token');
    });
  });
}

describeLockOn('in-process', () => new MemoryLockStore());
describeLockOn('Redis', () => new RedisLockStore(process.env.TEST_REDIS_URL ?? 'redis://127.0.0.1:6379', `test-${Date.now()}:`), Boolean(process.env.TEST_REDIS_URL));

describe('idempotency lock store unreachable', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory({ locks: new RedisLockStore('redis://127.0.0.1:1') });
  });
  afterAll(() => t.close());

  it('lets the call proceed (fail-open)', async () => {
    const res = await t.request('PUT', PATH, { token: t.adminToken, body: BODY });
    expect(res.statusCode).toBe(200);
    expect(res.json().permissions).toEqual(['op_borrow_apply', 'outbound_selection']);
  });
});
