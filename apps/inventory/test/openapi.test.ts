/**
 * The inventory service's OpenAPI document (decisions: API description): valid OpenAPI 3.1 that Redocly's
 * recommended rules accept, one operationId per operation, the committed client types up to date — and a
 * typed client (openapi-fetch + the generated types) over real HTTP whose every answer must match it.
 */
import { readFile } from 'node:fs/promises';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, formatProblem, lintOpenApi, openApiTypes, operationsOf, responseChecker, type OpenApiDocument, type ResponseChecker } from '@wms/platform/testing';
import type { paths } from './generated/inventory-api.js';
import { ADMIN, buildTestInventory, type TestInventory } from './helpers.js';

const TYPES_FILE = new URL('./generated/inventory-api.d.ts', import.meta.url);

interface Schema {
  type?: string;
  enum?: string[];
  properties?: Record<string, Schema>;
}
type Operation = { responses: Record<string, { content: Record<string, { schema: Schema }> }> };

let t: TestInventory;
let document: OpenApiDocument;

beforeAll(async () => {
  t = await buildTestInventory();
  document = structuredClone(t.service.app.swagger()) as OpenApiDocument;
});
afterAll(() => t?.close());

describe('the inventory OpenAPI document', () => {
  it('is OpenAPI 3.1 served from its own origin', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.servers?.length).toBeGreaterThan(0);
  });

  it('names every operation once, from method and path', () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(100);
    expect(operations.filter((operation) => !operation.operationId)).toEqual([]);
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    const idOf = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)?.operationId;
    expect(idOf('post', '/api/v1/outbound/request')).toBe('postOutboundRequest');
    expect(idOf('get', '/api/v1/inbound/base/{id}')).toBe('getInboundBaseById');
    expect(idOf('get', '/api/v1/stock/card/{serial_number}')).toBe('getStockCardBySerialNumber');
  });

  it('describes every path without a trailing slash, and every route answers with one too (the spec writes /inbound/base/)', async () => {
    expect(Object.keys(document.paths).filter((path) => path.endsWith('/'))).toEqual([]);
    expect(Object.keys(document.paths['/api/v1/inbound/base'] ?? {})).toEqual(expect.arrayContaining(['get', 'post']));
    for (const path of ['/api/v1/inbound/base/', '/api/v1/outbound/request/', '/api/v1/inbound/stock/list/']) {
      const twin = await t.request('GET', path, { token: t.adminToken });
      expect(twin.statusCode, path).toBe(200);
    }
    await t.user('SALES', 'ALPHA'); // a company exists through its users
    const created = await t.request('POST', '/api/v1/inbound/base/', { token: t.adminToken, body: { name: '斜杠物料', category: 'ALPHA/斜杠', company_name: 'ALPHA' } });
    expect(created.statusCode, created.body).toBe(201);
  });

  it('has no error under Redocly recommended rules', async () => {
    const problems = await lintOpenApi('inventory', document);
    expect(errorsOf(problems).map((problem) => formatProblem('inventory', problem))).toEqual([]);
  });

  it('matches the committed client types (npm run openapi:types)', async () => {
    const fresh = await openApiTypes(document);
    const committed = await readFile(TYPES_FILE, 'utf8');
    expect(fresh === committed, 'apps/inventory/test/generated/inventory-api.d.ts is stale: run npm run openapi:types').toBe(true);
  });
});

describe('a typed client over HTTP', () => {
  let baseUrl: string;
  let checker: ResponseChecker;
  const clientAs = (token?: string) => {
    const client = createClient<paths>({ baseUrl, headers: token ? { authorization: `Bearer ${token}` } : {} });
    client.use(checker.middleware);
    return client;
  };

  beforeAll(async () => {
    baseUrl = await t.service.app.listen({ host: '127.0.0.1', port: 0 });
    checker = responseChecker(document);
  });

  it('logs in, creates a material, stocks it in, submits an outbound request and reads it back', async () => {
    const login = await clientAs().POST('/api/v1/auth/login', { body: ADMIN });
    const admin = clientAs(login.data!.token);
    expect(login.data!.user.username).toBe(ADMIN.username);

    const suffix = Math.random().toString(36).slice(2, 8);
    const salesUser = { username: `openapi_sales_${suffix}`, password: 'password-1', name: '类型客户端', role: 'SALES' as const, company_name: 'ALPHA' };
    const created = await admin.POST('/api/v1/users', { body: salesUser });
    expect(created.response.status).toBe(201);
    const sales = clientAs((await clientAs().POST('/api/v1/auth/login', { body: salesUser })).data!.token);

    const material = await admin.POST('/api/v1/inbound/base', {
      body: { name: `类型物料${suffix}`, category: 'ALPHA/电子/电阻', spec_model: `OA-${suffix}`, unit: '个', company_name: 'ALPHA' },
    });
    expect(material.response.status).toBe(201);
    const baseId = material.data!.id;

    const row = await admin.POST('/api/v1/inbound/stock', {
      body: { source_table: 'stock_buy', base_id: baseId, in_quantity: 12.5, warehouse_location: 'A/01/01', company_name: 'ALPHA' },
    });
    expect(row.data).toMatchObject({ base_id: baseId, stock_quantity: 12.5, available_quantity: 12.5, company_name: 'ALPHA' });

    const submitted = await sales.POST('/api/v1/outbound/request', {
      body: { outbound_type: 'USE', items: [{ base_id: baseId, quantity: 4 }], remark: '类型客户端出库' },
    });
    expect(submitted.response.status).toBe(201);
    const id = submitted.data!.id;

    const readBack = await sales.GET('/api/v1/outbound/request/{id}', { params: { path: { id } } });
    expect(readBack.data).toMatchObject({ id, status: 0, company_name: 'ALPHA', remark: '类型客户端出库' });
    expect(readBack.data!.items.map((item) => [item.base_id, item.quantity, item.stock_id])).toEqual([[baseId, 4, row.data!.id]]);

    const listed = await admin.GET('/api/v1/outbound/request', { params: { query: { company: 'ALPHA', status: 0 } } });
    expect(listed.data!.items.map((request) => request.id)).toContain(id);

    const stock = await admin.GET('/api/v1/inbound/stock/{id}', { params: { path: { id: row.data!.id } } });
    expect(stock.data).toMatchObject({ stock_quantity: 12.5 });

    expect(checker.checked).toEqual([
      'POST /api/v1/auth/login 200',
      'POST /api/v1/users 201',
      'POST /api/v1/auth/login 200',
      'POST /api/v1/inbound/base 201',
      'POST /api/v1/inbound/stock 201',
      'POST /api/v1/outbound/request 201',
      'GET /api/v1/outbound/request/{id} 200',
      'GET /api/v1/outbound/request 200',
      'GET /api/v1/inbound/stock/{id} 200',
    ]);
  });

  it('rejects an answer that drifted from the document', async () => {
    const drifted = structuredClone(document);
    const login = drifted.paths['/api/v1/auth/login']!.post as Operation;
    const user = login.responses['200']!.content['application/json']!.schema.properties!.user!;
    user.properties!.role = { type: 'string', enum: ['NOBODY'] };
    const client = createClient<paths>({ baseUrl });
    client.use(responseChecker(drifted).middleware);
    await expect(client.POST('/api/v1/auth/login', { body: ADMIN })).rejects.toThrow(/POST \/api\/v1\/auth\/login 200: the body does not match the document:\n {2}\/user\/role/);
  });

  it('answers refusals with the documented error body', async () => {
    const before = checker.checked.length;
    const anonymous = await clientAs().GET('/api/v1/outbound/request/{id}', { params: { path: { id: 1 } } });
    expect(anonymous.response.status).toBe(401);
    expect(anonymous.error).toMatchObject({ code: expect.any(String), msg: expect.any(String) });

    const admin = clientAs((await clientAs().POST('/api/v1/auth/login', { body: ADMIN })).data!.token);
    const missing = await admin.GET('/api/v1/outbound/request/{id}', { params: { path: { id: 2147483647 } } });
    expect(missing.response.status).toBe(404);
    expect(checker.checked.slice(before)).toEqual([
      'GET /api/v1/outbound/request/{id} 401',
      'POST /api/v1/auth/login 200',
      'GET /api/v1/outbound/request/{id} 404',
    ]);
  });
});
