import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServiceApp } from '../src/http/service-app.js';

/** Contract §2: every error answer, the framework's own included, is { msg, code } with its own code. */
describe('error answers of a service app', () => {
  let ready = true;
  let app: Awaited<ReturnType<typeof createServiceApp>>;

  beforeAll(async () => {
    app = await createServiceApp({ title: 't', description: 'd', validationStatus: 400, health: async () => ready });
    app.post('/api/v1/things', { config: { public: true }, schema: { body: Type.Object({ name: Type.String() }) } }, async () => ({ ok: true }));
    // what the database answers, as the pg driver raises it
    const databaseError = (code: string, detail: string) => Object.assign(new Error('database'), { code, detail, constraint: 'things_fk' });
    app.get('/api/v1/missing-reference', { config: { public: true } }, async () => {
      throw databaseError('23503', 'Key (base_id)=(9) is not present in table "materials".');
    });
    app.get('/api/v1/still-referenced', { config: { public: true } }, async () => {
      throw databaseError('23503', 'Key (id)=(9) is still referenced from table "stock_rows".');
    });
    app.get('/api/v1/year-zero', { config: { public: true } }, async () => {
      throw databaseError('22008', 'date/time field value out of range');
    });
    app.get('/api/v1/framework-refusal', { config: { public: true } }, async () => {
      throw Object.assign(new Error('Method Not Allowed'), { code: 'FST_SOMETHING_NEW', statusCode: 405 });
    });
    await app.ready();
  });
  afterAll(() => app?.close());

  it('health answers 503 in the error shape while the service cannot take requests, 200 once it can', async () => {
    ready = false;
    const down = await app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(down.statusCode).toBe(503);
    expect(down.json()).toMatchObject({ status: 'unavailable', code: 'UNAVAILABLE', msg: expect.stringContaining('不可用') });
    ready = true;
    const up = await app.inject({ method: 'GET', url: '/api/v1/health' });
    expect(up.statusCode).toBe(200);
    expect(up.json()).toEqual({ status: 'ok' });
  });

  it('a body in a content type the endpoint does not read is 415 UNSUPPORTED_MEDIA_TYPE, not a validation failure', async () => {
    for (const contentType of ['application/xml', 'text/plain']) {
      const other = await app.inject({ method: 'POST', url: '/api/v1/things', headers: { 'content-type': contentType }, payload: 'name=x' });
      expect(other.statusCode, contentType).toBe(415);
      expect(other.json()).toEqual({ msg: '不支持的请求内容类型', code: 'UNSUPPORTED_MEDIA_TYPE' });
    }
    const json = await app.inject({ method: 'POST', url: '/api/v1/things', payload: { name: 'x' } });
    expect(json.statusCode).toBe(200);
  });

  it('database refusals a service did not foresee keep one meaning per code: a missing reference 404, a row in use 400, a bad date 400', async () => {
    const missing = await app.inject({ method: 'GET', url: '/api/v1/missing-reference' });
    expect(missing.statusCode).toBe(404);
    expect(missing.json()).toMatchObject({ code: 'NOT_FOUND', constraint: 'things_fk' });
    const referenced = await app.inject({ method: 'GET', url: '/api/v1/still-referenced' });
    expect(referenced.statusCode).toBe(400);
    expect(referenced.json()).toMatchObject({ code: 'IN_USE' });
    const yearZero = await app.inject({ method: 'GET', url: '/api/v1/year-zero' });
    expect(yearZero.statusCode).toBe(400);
    expect(yearZero.json()).toMatchObject({ code: 'VALIDATION_FAILED' });
  });

  it('a framework refusal no code names keeps its status with BAD_REQUEST, not a validation failure it is not', async () => {
    const refused = await app.inject({ method: 'GET', url: '/api/v1/framework-refusal' });
    expect(refused.statusCode).toBe(405);
    expect(refused.json()).toEqual({ code: 'BAD_REQUEST', msg: '请求无法处理（Method Not Allowed）' });
  });
});
