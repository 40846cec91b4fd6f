/**
 * The tracking service's OpenAPI document (decisions: API description): valid OpenAPI 3.1 that Redocly's
 * recommended rules accept, one operationId per operation, the committed client types up to date — and a
 * typed client (openapi-fetch + the generated types) over real HTTP whose every answer must match it.
 */
import { readFile } from 'node:fs/promises';
import createClient from 'openapi-fetch';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorsOf, formatProblem, lintOpenApi, openApiTypes, operationsOf, responseChecker, type OpenApiDocument } from '@wms/platform/testing';
import type { paths } from './generated/tracking-api.js';
import { ADMIN, buildTestTracking, type TestTracking } from './helpers.js';

const TYPES_FILE = new URL('./generated/tracking-api.d.ts', import.meta.url);

let t: TestTracking;
let document: OpenApiDocument;

beforeAll(async () => {
  t = await buildTestTracking();
  document = structuredClone(t.service.app.swagger()) as OpenApiDocument;
});
afterAll(() => t?.close());

describe('the tracking OpenAPI document', () => {
  it('is OpenAPI 3.1 served from its own origin, every path without a trailing slash', () => {
    expect(document.openapi).toMatch(/^3\.1\.\d+$/);
    expect(document.servers?.length).toBeGreaterThan(0);
    expect(Object.keys(document.paths).filter((path) => path.endsWith('/'))).toEqual([]);
  });

  it('names every operation once, from method and path', () => {
    const operations = operationsOf(document);
    expect(operations.length).toBeGreaterThan(40);
    expect(operations.filter((operation) => !operation.operationId)).toEqual([]);
    const ids = operations.map((operation) => operation.operationId);
    expect(ids.filter((id, index) => ids.indexOf(id) !== index)).toEqual([]);
    const idOf = (method: string, path: string) => operations.find((o) => o.method === method && o.path === path)?.operationId;
    expect(idOf('get', '/api/v1/products/scan/{sn}')).toBe('getProductsScanBySn');
    expect(idOf('patch', '/api/v1/groups/{id}/members/{user_id}')).toBe('patchGroupsByIdMembersByUserId');
  });

  it('has no error under Redocly recommended rules', async () => {
    const problems = await lintOpenApi('tracking', document);
    expect(errorsOf(problems).map((problem) => formatProblem('tracking', problem))).toEqual([]);
  });

  it('matches the committed client types (npm run openapi:types)', async () => {
    const fresh = await openApiTypes(document);
    const committed = await readFile(TYPES_FILE, 'utf8');
    expect(fresh === committed, 'apps/tracking/test/generated/tracking-api.d.ts is stale: run npm run openapi:types').toBe(true);
  });
});

describe('a typed client over HTTP', () => {
  it('logs in, creates a product, plans a task on it and reads both back', async () => {
    const baseUrl = await t.service.app.listen({ host: '127.0.0.1', port: 0 });
    const checker = responseChecker(document);
    const anonymous = createClient<paths>({ baseUrl });
    anonymous.use(checker.middleware);
    const login = await anonymous.POST('/api/v1/auth/login', { body: ADMIN });
    const admin = createClient<paths>({ baseUrl, headers: { authorization: `Bearer ${login.data!.token}` } });
    admin.use(checker.middleware);

    const product = await admin.POST('/api/v1/products', { body: { model: 'OA-100' } });
    expect(product.data).toMatchObject({ model: 'OA-100', status: '生产中', lifecycle_phase: 'PRODUCTION', base_id: null });
    const productId = product.data!.id;

    const scanned = await admin.GET('/api/v1/products/scan/{sn}', { params: { path: { sn: product.data!.serial_number } } });
    expect(scanned.data?.id).toBe(productId);

    const task = await admin.POST('/api/v1/tasks', { body: { product_id: productId, title: '类型客户端装配', stage: '装配' } });
    expect(task.data).toMatchObject({ product_id: productId, status: 'TODO', type: 'PRODUCTION', hours: 0 });

    const listed = await admin.GET('/api/v1/tasks', { params: { query: { product_id: productId } } });
    expect(listed.data!.items.map((item) => item.title)).toEqual(['类型客户端装配']);

    const refused = await anonymous.GET('/api/v1/products/{id}', { params: { path: { id: productId } } });
    expect(refused.response.status).toBe(401);

    expect(checker.checked).toEqual([
      'POST /api/v1/auth/login 200',
      'POST /api/v1/products 201',
      'GET /api/v1/products/scan/{sn} 200',
      'POST /api/v1/tasks 201',
      'GET /api/v1/tasks 200',
      'GET /api/v1/products/{id} 401',
    ]);
  });
});
