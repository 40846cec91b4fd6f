import { Type } from 'typebox';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { operationIdOf } from '../src/http/openapi.js';
import { createServiceApp } from '../src/http/service-app.js';
import { operationsOf, type OpenApiDocument } from '../src/testing/openapi-lint.js';

describe('operationIdOf', () => {
  it('names an operation from its method and its path below /api/v1', () => {
    expect(operationIdOf('POST', '/api/v1/outbound/request')).toBe('postOutboundRequest');
    expect(operationIdOf('GET', '/api/v1/inbound/base/:id')).toBe('getInboundBaseById');
    expect(operationIdOf('POST', '/api/v1/inbound/stock/:id/change-status')).toBe('postInboundStockByIdChangeStatus');
  });

  it('writes path parameters and snake_case words in camel case', () => {
    expect(operationIdOf('GET', '/api/v1/stock/card/:serial_number')).toBe('getStockCardBySerialNumber');
    expect(operationIdOf('DELETE', '/api/v1/groups/:id/members/:user_id')).toBe('deleteGroupsByIdMembersByUserId');
    expect(operationIdOf('GET', '/api/v1/stock/return-from-outbound')).toBe('getStockReturnFromOutbound');
  });

  it('keeps the words of a camelCase segment and reads OpenAPI braces as parameters', () => {
    expect(operationIdOf('GET', '/api/v1/inbound/stock/{serial_number}/pendingCount')).toBe('getInboundStockBySerialNumberPendingCount');
  });
});

describe('the OpenAPI document of a service app', () => {
  let document: OpenApiDocument;
  let app: Awaited<ReturnType<typeof createServiceApp>>;

  beforeAll(async () => {
    app = await createServiceApp({ title: 't', description: 'd', validationStatus: 400, health: async () => true });
    const Thing = Type.Object({ id: Type.Integer(), label: Type.Union([Type.String(), Type.Null()]) });
    app.get('/api/v1/things', { config: { public: true }, schema: { response: { 200: Type.Array(Thing) } } }, async () => [{ id: 1, label: null }]);
    app.get('/api/v1/things/:thing_id', { config: { public: true }, schema: { params: Type.Object({ thing_id: Type.Integer() }) } }, async () => ({}));
    app.post(
      '/api/v1/things',
      { config: { public: true }, schema: { operationId: 'makeThing', body: Type.Object({ weight: Type.Number({ exclusiveMinimum: 0 }) }) } },
      async () => ({}),
    );
    await app.ready();
    document = app.swagger() as unknown as OpenApiDocument;
  });
  afterAll(() => app?.close());

  it('is OpenAPI 3.1 with a relative server', () => {
    expect(document.openapi).toBe('3.1.0');
    expect(document.servers).toEqual([expect.objectContaining({ url: '/' })]);
  });

  it('gives every operation an operationId, keeping one a route sets itself', () => {
    expect(operationsOf(document).map(({ method, path, operationId }) => `${method} ${path} ${operationId}`)).toEqual([
      'get /api/v1/health getHealth',
      'get /api/v1/things getThings',
      'post /api/v1/things makeThing',
      'get /api/v1/things/{thing_id} getThingsByThingId',
    ]);
  });

  it('answers a path with a trailing slash as without, and describes it once', async () => {
    expect(Object.keys(document.paths).filter((path) => path.endsWith('/'))).toEqual([]);
    const twin = await app.inject({ method: 'GET', url: '/api/v1/things/' });
    expect(twin.statusCode).toBe(200);
    expect(twin.json()).toEqual([{ id: 1, label: null }]);
  });

  it('keeps JSON Schema 2020-12: a numeric exclusiveMinimum and null as a type', () => {
    const post = document.paths['/api/v1/things']!.post as { requestBody: { content: { 'application/json': { schema: unknown } } } };
    expect(post.requestBody.content['application/json'].schema).toMatchObject({ properties: { weight: { exclusiveMinimum: 0 } } });
    expect(JSON.stringify(document.paths['/api/v1/things']!.get)).toContain('{"type":"null"}');
  });
});
