import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { usingRedis } from '@wms/platform/testing';
import { ADMIN, buildTestInventory, type TestInventory } from './helpers.js';

const KEY = 'internal-key-123';
const WINDOW = 60;
/** Low limits so the tests reach them quickly. */
const credentialLimits = { loginFailuresPerUser: 3, loginFailuresPerAddress: 6, apiKeyFailuresPerAddress: 3, windowSeconds: WINDOW };

/** A fresh client address per call site: each test counts from zero, also in a shared Redis. */
const runTag = Math.floor(Math.random() * 250) + 1;
let addressNumber = 0;
const newAddress = () => `10.${runTag}.${Math.floor(++addressNumber / 250)}.${(addressNumber % 250) + 1}`;

const loginFrom = (t: TestInventory, address: string, username: string, password: string) =>
  t.service.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password }, remoteAddress: address });

const pingFrom = (t: TestInventory, address: string, key?: string) =>
  t.service.app.inject({ method: 'GET', url: '/api/v1/internal/ping', headers: key === undefined ? {} : { 'x-api-key': key }, remoteAddress: address });

function expectThrottled(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.json().code).toBe('TOO_MANY_ATTEMPTS');
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= WINDOW).toBe(true);
  expect(res.json().msg).toContain(`请 ${seconds} 秒后再试`);
}

describe('login throttling', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory({ config: { credentialLimits, internalApiKey: KEY } });
  });
  afterAll(() => t.close());

  it('keeps a few mistyped passwords a plain 401, then refuses the username with 429 even with the right password', async () => {
    const user = await t.user('SALES', 'ALPHA');
    const address = newAddress();
    // the username is counted trimmed and lower-cased
    for (const name of [user.username, ` ${user.username.toUpperCase()} `, user.username]) {
      const res = await loginFrom(t, address, name, 'wrong-password');
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('UNAUTHENTICATED');
    }
    const blocked = await loginFrom(t, address, user.username, 'wrong-password');
    expectThrottled(blocked);
    expect(blocked.json().msg).toContain('登录失败次数过多');
    expectThrottled(await loginFrom(t, address, user.username, 'password-1'));
    expectThrottled(await loginFrom(t, newAddress(), user.username, 'password-1'));
    // another account from the same address is not held back by this one
    expect((await loginFrom(t, address, ADMIN.username, ADMIN.password)).statusCode).toBe(200);
  });

  it('does not count successful logins, and a success clears the username count', async () => {
    const user = await t.user('SALES', 'ALPHA');
    const address = newAddress();
    for (let i = 0; i < 10; i++) expect((await loginFrom(t, address, user.username, 'password-1')).statusCode).toBe(200);
    expect((await loginFrom(t, address, user.username, 'wrong-password')).statusCode).toBe(401);
    expect((await loginFrom(t, address, user.username, 'wrong-password')).statusCode).toBe(401);
    expect((await loginFrom(t, address, user.username, 'password-1')).statusCode).toBe(200);
    for (let i = 0; i < 3; i++) expect((await loginFrom(t, newAddress(), user.username, 'wrong-password')).statusCode).toBe(401);
    expectThrottled(await loginFrom(t, newAddress(), user.username, 'wrong-password'));
  });

  it('counts an unknown username like a known one, across addresses', async () => {
    const ghost = `ghost_${runTag}_${Date.now()}`;
    for (let i = 0; i < 3; i++) expect((await loginFrom(t, newAddress(), ghost, 'whatever-1')).statusCode).toBe(401);
    expectThrottled(await loginFrom(t, newAddress(), ghost, 'whatever-1'));
  });

  it('refuses an address after its limit of failures across usernames, while other addresses log in', async () => {
    const address = newAddress();
    for (let i = 0; i < 6; i++) expect((await loginFrom(t, address, `spray_${runTag}_${i}_${Date.now()}`, 'guess-123')).statusCode).toBe(401);
    expectThrottled(await loginFrom(t, address, `spray_${runTag}_x_${Date.now()}`, 'guess-123'));
    expectThrottled(await loginFrom(t, address, ADMIN.username, ADMIN.password));
    expect((await loginFrom(t, newAddress(), ADMIN.username, ADMIN.password)).statusCode).toBe(200);
  });

  it('leaves requests that never reach the password check uncounted', async () => {
    const address = newAddress();
    for (let i = 0; i < 5; i++) {
      const res = await t.service.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username: ADMIN.username }, remoteAddress: address });
      expect(res.statusCode).toBe(400);
    }
    expect((await loginFrom(t, address, ADMIN.username, ADMIN.password)).statusCode).toBe(200);
  });

  it('does not count loopback per address (the same host names no one), but still counts its usernames', async () => {
    for (const loopback of ['127.0.0.1', '::1', '::ffff:127.0.0.1']) {
      for (let i = 0; i < 8; i++) expect((await loginFrom(t, loopback, `local_${runTag}_${i}_${Date.now()}`, 'guess-123')).statusCode).toBe(401);
      expect((await loginFrom(t, loopback, ADMIN.username, ADMIN.password)).statusCode).toBe(200);
    }
    const user = await t.user('SALES', 'ALPHA');
    for (let i = 0; i < 3; i++) expect((await loginFrom(t, '127.0.0.1', user.username, 'wrong-password')).statusCode).toBe(401);
    expectThrottled(await loginFrom(t, '127.0.0.1', user.username, 'password-1'));
  });

  it('documents the 429 answers in OpenAPI', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).json();
    for (const [path, method] of [['/api/v1/auth/login', 'post'], ['/api/v1/internal/ping', 'get']] as const) {
      const answer = doc.paths[path][method].responses['429'];
      expect(answer.description).toContain('TOO_MANY_ATTEMPTS');
      expect(answer.headers['Retry-After']).toBeDefined();
    }
  });
});

describe('X-API-Key throttling', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory({ config: { credentialLimits, internalApiKey: KEY } });
  });
  afterAll(() => t.close());

  it('answers 401 to missing and wrong keys, then 429 before comparing, even a correct key', async () => {
    const address = newAddress();
    expect((await pingFrom(t, address)).statusCode).toBe(401);
    expect((await pingFrom(t, address, 'wrong')).statusCode).toBe(401);
    expect((await pingFrom(t, address, 'wrong-again')).statusCode).toBe(401);
    const blocked = await pingFrom(t, address, 'wrong');
    expectThrottled(blocked);
    expect(blocked.json().msg).toContain('X-API-Key 错误次数过多');
    expectThrottled(await pingFrom(t, address, KEY));
    expect((await pingFrom(t, newAddress(), KEY)).statusCode).toBe(200);
  });

  it('never throttles keys from loopback, where the notifications of the other service come from', async () => {
    for (let i = 0; i < 6; i++) expect((await pingFrom(t, '127.0.0.1', 'wrong')).statusCode).toBe(401);
    expect((await pingFrom(t, '127.0.0.1', KEY)).statusCode).toBe(200);
  });

  it('never counts a correct key', async () => {
    const address = newAddress();
    for (let i = 0; i < 12; i++) expect((await pingFrom(t, address, KEY)).statusCode).toBe(200);
    expect((await pingFrom(t, address, 'wrong')).statusCode).toBe(401);
  });

  it('still answers 503 while the key setting is empty', async () => {
    const address = newAddress();
    t.service.deps.config.internalApiKey = undefined;
    try {
      for (let i = 0; i < 5; i++) expect((await pingFrom(t, address, 'anything')).statusCode).toBe(503);
    } finally {
      t.service.deps.config.internalApiKey = KEY;
    }
    expect((await pingFrom(t, address, KEY)).statusCode).toBe(200);
  });
});

describe('throttle store', () => {
  it('fails open when Redis cannot be reached: failures stay 401 and the right password logs in', async () => {
    const t = await buildTestInventory({ config: { credentialLimits, internalApiKey: KEY, redisUrl: 'redis://127.0.0.1:1' } });
    try {
      const address = newAddress();
      for (let i = 0; i < 5; i++) expect((await loginFrom(t, address, ADMIN.username, 'wrong-password')).statusCode).toBe(401);
      expect((await loginFrom(t, address, ADMIN.username, ADMIN.password)).statusCode).toBe(200);
      for (let i = 0; i < 5; i++) expect((await pingFrom(t, address, 'wrong')).statusCode).toBe(401);
      expect((await pingFrom(t, address, KEY)).statusCode).toBe(200);
    } finally {
      await t.close();
    }
  });

  it.skipIf(!usingRedis())('shares the counts in Redis between instances', async () => {
    const config = { credentialLimits, internalApiKey: KEY, redisUrl: process.env.TEST_REDIS_URL };
    const first = await buildTestInventory({ config });
    const second = await buildTestInventory({ config });
    try {
      const ghost = `ghost_${runTag}_${Date.now()}`;
      for (const t of [first, second, first]) expect((await loginFrom(t, newAddress(), ghost, 'whatever-1')).statusCode).toBe(401);
      expectThrottled(await loginFrom(second, newAddress(), ghost, 'whatever-1'));

      const address = newAddress();
      for (const t of [second, first, second]) expect((await pingFrom(t, address, 'wrong')).statusCode).toBe(401);
      expectThrottled(await pingFrom(first, address, KEY));

      // a success on one instance clears the username count seen by the other
      const user = await first.user('SALES', 'ALPHA');
      for (let i = 0; i < 2; i++) expect((await loginFrom(second, newAddress(), user.username, 'wrong-password')).statusCode).toBe(401);
      expect((await loginFrom(first, newAddress(), user.username, 'password-1')).statusCode).toBe(200);
      for (let i = 0; i < 3; i++) expect((await loginFrom(second, newAddress(), user.username, 'wrong-password')).statusCode).toBe(401);
    } finally {
      await first.close();
      await second.close();
    }
  });
});
