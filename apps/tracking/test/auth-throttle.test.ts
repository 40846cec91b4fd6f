import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { LightMyRequestResponse } from 'fastify';
import { usingRedis } from '@wms/platform/testing';
import { ADMIN, buildTestTracking, TEST_PASSWORD, uniqueName, type TestTracking } from './helpers.js';

const KEY = 'webhook-key-for-tests';
const WINDOW = 60;
/** Low limits so the tests reach them quickly. */
const credentialLimits = { loginFailuresPerUser: 3, loginFailuresPerAddress: 6, apiKeyFailuresPerAddress: 3, windowSeconds: WINDOW };

/** A fresh client address per call site: each test counts from zero, also in a shared Redis. */
const runTag = Math.floor(Math.random() * 250) + 1;
let addressNumber = 0;
const newAddress = () => `10.${runTag}.${Math.floor(++addressNumber / 250)}.${(addressNumber % 250) + 1}`;

const loginFrom = (t: TestTracking, address: string, username: string, password: string) =>
  t.service.app.inject({ method: 'POST', url: '/api/v1/auth/login', payload: { username, password }, remoteAddress: address });

/** The identity-card lookup: 404 for an unknown serial once the key is accepted. */
const lookupFrom = (t: TestTracking, address: string, key?: string) =>
  t.service.app.inject({
    method: 'GET',
    url: '/api/v1/integrations/products/NOPE000000000001',
    headers: key === undefined ? {} : { 'x-api-key': key },
    remoteAddress: address,
  });

function expectThrottled(res: LightMyRequestResponse) {
  expect(res.statusCode, res.body).toBe(429);
  expect(res.json().code).toBe('TOO_MANY_ATTEMPTS');
  const seconds = Number(res.headers['retry-after']);
  expect(Number.isInteger(seconds) && seconds >= 1 && seconds <= WINDOW).toBe(true);
  expect(res.json().msg).toContain(`请 ${seconds} 秒后再试`);
}

describe('tracking login throttling', () => {
  let t: TestTracking;
  beforeAll(async () => {
    t = await buildTestTracking({ config: { credentialLimits, webhookApiKey: KEY } });
  });
  afterAll(() => t.close());

  it('keeps a few mistyped passwords a plain 401, then refuses the username with 429 even with the right password', async () => {
    const user = await t.user('OPERATOR');
    const address = newAddress();
    for (let i = 0; i < 3; i++) {
      const res = await loginFrom(t, address, i === 1 ? ` ${user.username.toUpperCase()}` : user.username, 'wrong-password');
      expect(res.statusCode).toBe(401);
      expect(res.json().code).toBe('UNAUTHENTICATED');
    }
    const blocked = await loginFrom(t, address, user.username, TEST_PASSWORD);
    expectThrottled(blocked);
    expect(blocked.json().msg).toContain('登录失败次数过多');
    expect((await loginFrom(t, address, ADMIN.username, ADMIN.password)).statusCode).toBe(200);
  });

  it('does not count successful logins', async () => {
    const user = await t.user('OPERATOR');
    const address = newAddress();
    for (let i = 0; i < 10; i++) expect((await loginFrom(t, address, user.username, TEST_PASSWORD)).statusCode).toBe(200);
    expect((await loginFrom(t, address, user.username, 'wrong-password')).statusCode).toBe(401);
  });

  it('counts refusals of another department account and unknown usernames', async () => {
    const outsider = uniqueName('beta');
    await t.insertUser({ username: outsider, department: 'BETA' });
    for (let i = 0; i < 3; i++) expect((await loginFrom(t, newAddress(), outsider, TEST_PASSWORD)).statusCode).toBe(401);
    expectThrottled(await loginFrom(t, newAddress(), outsider, TEST_PASSWORD));
  });

  it('refuses an address after its limit of failures across usernames, while other addresses log in', async () => {
    const address = newAddress();
    for (let i = 0; i < 6; i++) expect((await loginFrom(t, address, uniqueName('spray'), 'guess-123')).statusCode).toBe(401);
    expectThrottled(await loginFrom(t, address, uniqueName('spray'), 'guess-123'));
    expectThrottled(await loginFrom(t, address, ADMIN.username, ADMIN.password));
    expect((await loginFrom(t, newAddress(), ADMIN.username, ADMIN.password)).statusCode).toBe(200);
  });

  it('throttles wrong webhook keys per address: 401, then 429 before comparing; a correct key never counts', async () => {
    const address = newAddress();
    expect((await lookupFrom(t, address)).statusCode).toBe(401);
    expect((await lookupFrom(t, address, 'wrong')).statusCode).toBe(401);
    expect((await lookupFrom(t, address, 'wrong-again')).statusCode).toBe(401);
    const blocked = await lookupFrom(t, address, KEY);
    expectThrottled(blocked);
    expect(blocked.json().msg).toContain('X-API-Key 错误次数过多');

    const sender = newAddress();
    for (let i = 0; i < 12; i++) expect((await lookupFrom(t, sender, KEY)).statusCode).toBe(404);
    expect((await lookupFrom(t, sender, 'wrong')).statusCode).toBe(401);
  });

  it('documents the 429 answers in OpenAPI', async () => {
    const doc = (await t.request('GET', '/api/v1/openapi.json')).json();
    const answers = [doc.paths['/api/v1/auth/login'].post, doc.paths['/api/v1/integrations/inventory/stock-in'].post].map((op) => op.responses['429']);
    for (const answer of answers) {
      expect(answer.description).toContain('TOO_MANY_ATTEMPTS');
      expect(answer.headers['Retry-After']).toBeDefined();
    }
  });
});

describe('tracking throttle store', () => {
  it('fails open when Redis cannot be reached', async () => {
    const t = await buildTestTracking({ config: { credentialLimits, webhookApiKey: KEY, redisUrl: 'redis://127.0.0.1:1' } });
    try {
      const address = newAddress();
      for (let i = 0; i < 5; i++) expect((await loginFrom(t, address, ADMIN.username, 'wrong-password')).statusCode).toBe(401);
      expect((await loginFrom(t, address, ADMIN.username, ADMIN.password)).statusCode).toBe(200);
      for (let i = 0; i < 5; i++) expect((await lookupFrom(t, address, 'wrong')).statusCode).toBe(401);
    } finally {
      await t.close();
    }
  });

  it.skipIf(!usingRedis())('shares counts in Redis between instances of one department, not with another department', async () => {
    const config = { credentialLimits, webhookApiKey: KEY, redisUrl: process.env.TEST_REDIS_URL };
    const first = await buildTestTracking({ config });
    const second = await buildTestTracking({ config });
    const beta = await buildTestTracking({ config: { ...config, orgDepartment: 'BETA', materialCategoryPrefix: 'BETA' } });
    try {
      const ghost = uniqueName(`ghost_${runTag}`);
      for (const t of [first, second, first]) expect((await loginFrom(t, newAddress(), ghost, 'whatever-1')).statusCode).toBe(401);
      expectThrottled(await loginFrom(second, newAddress(), ghost, 'whatever-1'));
      expect((await loginFrom(beta, newAddress(), ghost, 'whatever-1')).statusCode).toBe(401);

      const address = newAddress();
      for (const t of [second, first, second]) expect((await lookupFrom(t, address, 'wrong')).statusCode).toBe(401);
      expectThrottled(await lookupFrom(first, address, KEY));
    } finally {
      await Promise.all([first.close(), second.close(), beta.close()]);
    }
  });
});
