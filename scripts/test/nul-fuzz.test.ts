/**
 * A NUL character (U+0000) cannot be stored by PostgreSQL; before it was refused in one place it turned
 * about 40 endpoints of both services into 500s. This sends one to every operation of both OpenAPI
 * documents — in each path parameter, each string query parameter and each string body field — as an
 * administrator with the right API keys, and expects a 4xx every time, never a 500.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildTestInventory, type TestInventory } from '../../apps/inventory/test/helpers.js';
import { buildTestTracking, type TestTracking } from '../../apps/tracking/test/helpers.js';

const KEY = 'fuzz-key-0123456789';
const NUL_TEXT = 'a\u0000b';

interface SchemaLike {
  type?: string | string[];
  properties?: Record<string, SchemaLike>;
  anyOf?: SchemaLike[];
  items?: SchemaLike;
}
interface Operation {
  parameters?: Array<{ name: string; in: string; schema?: SchemaLike }>;
  requestBody?: { content?: Record<string, { schema?: SchemaLike }> };
}

const typeOf = (schema: SchemaLike | undefined): string | undefined => {
  if (!schema) return undefined;
  if (Array.isArray(schema.type)) return schema.type.find((type) => type !== 'null');
  return schema.type ?? typeOf(schema.anyOf?.find((inner) => inner.type !== 'null'));
};

/** A value of the schema's shape whose strings all carry a NUL. */
function sampleOf(schema: SchemaLike | undefined, depth = 0): unknown {
  switch (typeOf(schema)) {
    case 'string':
      return NUL_TEXT;
    case 'integer':
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return depth > 3 ? [] : [sampleOf(schema?.items, depth + 1)];
    case 'object':
      return Object.fromEntries(Object.entries(schema?.properties ?? {}).map(([key, inner]) => [key, sampleOf(inner, depth + 1)]));
    default:
      return NUL_TEXT;
  }
}

function requestsOf(document: { paths: Record<string, Record<string, Operation>> }) {
  const requests: Array<{ method: string; url: string; body?: unknown }> = [];
  for (const [path, operations] of Object.entries(document.paths)) {
    for (const [method, operation] of Object.entries(operations)) {
      if (!['get', 'post', 'put', 'patch', 'delete'].includes(method)) continue;
      const url = path.replace(/\{[^}]+\}/g, encodeURIComponent(NUL_TEXT));
      const query = (operation.parameters ?? [])
        .filter((parameter) => parameter.in === 'query' && typeOf(parameter.schema) === 'string')
        .map((parameter) => `${parameter.name}=${encodeURIComponent(NUL_TEXT)}`);
      const schema = operation.requestBody?.content?.['application/json']?.schema;
      requests.push({
        method: method.toUpperCase(),
        url: query.length > 0 ? `${url}?${query.join('&')}` : url,
        body: schema ? sampleOf(schema) : undefined,
      });
    }
  }
  return requests;
}

async function expectNo500(service: TestInventory | TestTracking, token: string) {
  const document = service.service.app.swagger() as unknown as { paths: Record<string, Record<string, Operation>> };
  const requests = requestsOf(document);
  expect(requests.length).toBeGreaterThan(50);
  const failures: string[] = [];
  for (const { method, url, body } of requests) {
    const response = await service.service.app.inject({
      method: method as 'GET',
      url,
      headers: { authorization: `Bearer ${token}`, 'x-api-key': KEY },
      ...(body === undefined ? {} : { payload: body as Record<string, unknown> }),
    });
    if (response.statusCode >= 500) failures.push(`${method} ${url} → ${response.statusCode} ${response.body.slice(0, 120)}`);
  }
  expect(failures).toEqual([]);
}

describe('a NUL character sent to every operation', () => {
  let inventory: TestInventory;
  let tracking: TestTracking;

  beforeAll(async () => {
    inventory = await buildTestInventory({ config: { internalApiKey: KEY } });
    tracking = await buildTestTracking({ config: { webhookApiKey: KEY } });
  });
  afterAll(async () => {
    await inventory?.close();
    await tracking?.close();
  });

  it('never answers 500 in the inventory service', async () => {
    await expectNo500(inventory, inventory.adminToken);
  });

  it('never answers 500 in the tracking service', async () => {
    await expectNo500(tracking, tracking.adminToken);
  });
});
