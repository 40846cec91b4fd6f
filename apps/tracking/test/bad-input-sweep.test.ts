/**
 * Contract §7 ("bad input, for every endpoint: a clear 4xx with msg and code, and nothing written") and §2
 * (every error answer is { msg, code }; validation failures of the tracking service are 422 naming the field),
 * swept over every operation of the service's own OpenAPI document (GET /api/v1/openapi.json). Each request
 * goes as the tests' SUPER_ADMIN with the webhook key, so the guards let it through to validation:
 *  - bodies: malformed JSON, an array, a string and a number instead of the object, a body over 1 MiB, a body
 *    sent as text/plain, and on an otherwise valid body each property (nested ones too) with a wrong type, an
 *    integer as 1.5, an enum value that does not exist, each id as 0, -1, 2147483648 and one that names nothing,
 *    a negative number, a zero quantity, a number above its maximum, a string over its length or blank;
 *  - path parameters: each integer as abc, 1.5, 0, -1, 2147483648 and one that names nothing (404), each serial
 *    with a space or over 64 characters, an unknown card; the other parameters name existing rows;
 *  - query parameters (422 naming the parameter, never a 500): an integer as abc, 1.5, 0, -1 and above its
 *    maximum, a date as 2024-02-30, 2024-13-01 and abc, a boolean as maybe, an unknown enum value, a
 *    serial with a space, a string over its length, and any parameter sent twice.
 * Every answer must be a 4xx with a JSON { msg, code }, and the tracking audit log (every business table is
 * audited by triggers) must not grow.
 *
 * Left out because a 2xx is the legitimate answer:
 *  - operations that take no input at all (INPUTLESS below: nothing can be sent wrong);
 *  - an id that names nothing in a query filter (an empty list) and, in bodies, the inventory service's ids
 *    (FOREIGN_IDS: base_id, stock_id), which this service cannot check (a product may name a material it has
 *    not heard of; a notification about an unknown stock row is received with matched: false);
 *  - a valid serial on GET /products/qrcode/{sn}, which renders any serial.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { queryRows } from '@wms/platform';
import { buildTestTracking, DEPARTMENT, type TestTracking, type TestUser } from './helpers.js';
import { addMembers, createGroup, createProduct, createTask } from './scope-fixtures.js';

const KEY = 'webhook-key-for-the-sweep';
const INT_MAX = 2147483647;
/** Ids of the inventory service: a body may name one this service has never seen. */
const FOREIGN_IDS = new Set(['base_id', 'stock_id']);
/** Operations with no path, query or body input: a 2xx is their only answer. */
const INPUTLESS = [
  'GET /api/v1/health',
  'GET /api/v1/auth/me',
  'GET /api/v1/dashboard/cards',
  'GET /api/v1/dashboard/wip-distribution',
  'GET /api/v1/analytics/filter-options',
  'GET /api/v1/screen/summary',
  'GET /api/v1/screen/line-status',
  'GET /api/v1/screen/today',
  'GET /api/v1/audit/modules',
];

interface Schema {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: Schema[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  minItems?: number;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  'x-cap'?: number;
}
interface Parameter {
  name: string;
  in: 'path' | 'query' | 'header';
  required?: boolean;
  schema: Schema;
}
interface Operation {
  method: string;
  path: string;
  parameters: Parameter[];
  body?: Schema;
}

/** One request the service must refuse. `field`: the field a 422 must name; `only422`: nothing but 422 will do. */
interface BadRequest {
  label: string;
  method: string;
  url: string;
  payload?: string;
  field?: string;
  only422?: boolean;
  /** application/json unless said */
  contentType?: string;
}

let t: TestTracking;
let operations: Operation[];
let member: TestUser;
const fixtures = { product: 0, serial: '', task: 0, group: 0 };

beforeAll(async () => {
  t = await buildTestTracking({ config: { webhookApiKey: KEY } });
  const document = (await t.request('GET', '/api/v1/openapi.json')).json() as { paths: Record<string, Record<string, unknown>> };
  operations = operationsOf(document);

  member = await t.user('OPERATOR');
  const group = await createGroup(t, { phases: ['PRODUCTION'] });
  await addMembers(t, group.id, [member.id]);
  const product = await createProduct(t, { group_id: group.id });
  const task = await createTask(t, { product_id: product.id, assignee_id: member.id });
  Object.assign(fixtures, { product: product.id, serial: product.serial_number, task: task.id, group: group.id });
});
afterAll(() => t?.close());

function operationsOf(document: { paths: Record<string, Record<string, unknown>> }): Operation[] {
  return Object.entries(document.paths).flatMap(([path, item]) =>
    ['get', 'post', 'put', 'patch', 'delete']
      .filter((method) => item[method])
      .map((method) => {
        const operation = item[method] as { parameters?: Parameter[]; requestBody?: { content?: Record<string, { schema?: Schema }> } };
        return {
          method: method.toUpperCase(),
          path,
          parameters: operation.parameters ?? [],
          body: operation.requestBody?.content?.['application/json']?.schema,
        };
      }),
  );
}

// ---- valid values ---------------------------------------------------------------------------------

const nonNull = (schema: Schema): Schema => schema.anyOf?.find((inner) => inner.type !== 'null') ?? schema;
const typeOf = (schema: Schema): string | undefined => {
  const inner = nonNull(schema);
  if (inner.enum || 'const' in inner) return 'enum';
  return Array.isArray(inner.type) ? inner.type.find((type) => type !== 'null') : inner.type;
};

/** An existing row for an id named `name` (a body field, or a path parameter of `path`). */
function existingId(name: string, path = ''): number {
  if (name === 'product_id') return fixtures.product;
  if (name === 'user_id' || name === 'assignee_id' || name === 'user_ids') return member.id;
  if (name === 'group_id' || name === 'parent_id') return fixtures.group;
  if (name === 'id') {
    const resource = path.split('/')[3];
    const ids: Record<string, number> = { users: member.id, products: fixtures.product, tasks: fixtures.task, groups: fixtures.group };
    return ids[resource ?? ''] ?? 1;
  }
  return 1;
}

/** A value the schema accepts; every optional property is present, so each can be made wrong in turn. */
function validValue(schema: Schema, name: string, path = ''): unknown {
  const inner = nonNull(schema);
  if (inner.enum) return name === 'card' ? 'in_production' : inner.enum[0];
  if ('const' in inner) return inner.const;
  switch (typeOf(inner)) {
    case 'string':
      if (inner.format === 'date') return '2024-01-02';
      if (name === 'sn') return fixtures.serial;
      if (name === 'company_name') return DEPARTMENT;
      return 'sample01'.padEnd(inner.minLength ?? 0, 'x');
    case 'integer':
      return /(^id|_id|_ids)$/.test(name) ? existingId(name, path) : Math.max(inner.minimum ?? 1, 1);
    case 'number':
      return 1;
    case 'boolean':
      return true;
    case 'array':
      return Array.from({ length: Math.max(inner.minItems ?? 1, 1) }, () => validValue(inner.items ?? {}, name));
    case 'object':
      return Object.fromEntries(Object.entries(inner.properties ?? {}).map(([key, property]) => [key, validValue(property, key)]));
    default:
      return 'sample01';
  }
}

// ---- wrong values -----------------------------------------------------------------------------------

const jsonTypeOf = (value: unknown) => (Array.isArray(value) ? 'array' : value === null ? 'null' : typeof value);
const CANDIDATES: unknown[] = [12345, 'abc', true, {}, []];

/** A value of a JSON type the schema does not take. */
function wrongTypeFor(schema: Schema): unknown {
  const inner = nonNull(schema);
  const taken = new Set<string>();
  if (inner.enum) inner.enum.forEach((value) => taken.add(jsonTypeOf(value)));
  else if ('const' in inner) taken.add(jsonTypeOf(inner.const));
  else {
    const type = typeOf(inner);
    taken.add(type === 'integer' ? 'number' : (type ?? ''));
  }
  return CANDIDATES.find((candidate) => !taken.has(jsonTypeOf(candidate)));
}

interface FieldValue {
  value: unknown;
  why: string;
  /** false: any 4xx will do (an id that names nothing may be 404 or 422). */
  schemaError: boolean;
}

/** The wrong values of one body field (or array item) named `name`. */
function wrongValuesOf(schema: Schema, name: string): FieldValue[] {
  const inner = nonNull(schema);
  const type = typeOf(inner);
  const values: FieldValue[] = [{ value: wrongTypeFor(inner), why: 'wrong type', schemaError: true }];
  if (type === 'enum') values.push({ value: 'NOPE', why: 'unknown value', schemaError: true });
  if (type === 'integer') values.push({ value: 1.5, why: '1.5', schemaError: true });
  if (type === 'integer' && /(^id|_id|_ids)$/.test(name)) {
    values.push(...[0, -1, INT_MAX + 1].map((value) => ({ value, why: `id ${value}`, schemaError: true })));
    if (!FOREIGN_IDS.has(name)) values.push({ value: INT_MAX, why: 'id that names nothing', schemaError: false });
  }
  if (type === 'number') {
    values.push({ value: -1, why: 'negative', schemaError: true });
    if (/quantity/.test(name)) values.push({ value: 0, why: 'zero quantity', schemaError: true });
  }
  if ((type === 'number' || (type === 'integer' && !/(^id|_id|_ids)$/.test(name))) && inner.maximum !== undefined) {
    values.push({ value: inner.maximum + 1, why: 'above the maximum', schemaError: true });
  }
  if (type === 'string' && inner.maxLength !== undefined) values.push({ value: 'x'.repeat(inner.maxLength + 1), why: 'too long', schemaError: true });
  if (type === 'string' && inner.pattern === '\\S') values.push({ value: '   ', why: 'blank', schemaError: true });
  return values;
}

type PathStep = string | number;

/** Every field of a body schema with its path: properties, array items (as item 0), nested objects. */
function fieldsOf(schema: Schema, path: PathStep[] = []): Array<{ path: PathStep[]; name: string; schema: Schema }> {
  const inner = nonNull(schema);
  if (typeOf(inner) === 'object') {
    return Object.entries(inner.properties ?? {}).flatMap(([key, property]) => [
      { path: [...path, key], name: key, schema: property },
      ...fieldsOf(property, [...path, key]),
    ]);
  }
  if (typeOf(inner) === 'array' && inner.items) {
    const item = { path: [...path, 0], name: String(path.at(-1) ?? ''), schema: inner.items };
    return [item, ...fieldsOf(inner.items, item.path)];
  }
  return [];
}

function withValueAt(base: unknown, path: PathStep[], value: unknown): unknown {
  const copy = structuredClone(base) as Record<PathStep, unknown>;
  let node = copy;
  path.slice(0, -1).forEach((step) => (node = node[step] as Record<PathStep, unknown>));
  node[path.at(-1)!] = value;
  return copy;
}

// ---- the requests -------------------------------------------------------------------------------------

const pathParameters = (operation: Operation) => operation.parameters.filter((parameter) => parameter.in === 'path');
const queryParameters = (operation: Operation) => operation.parameters.filter((parameter) => parameter.in === 'query');

function urlOf(operation: Operation, pathValues: Record<string, unknown> = {}, query = ''): string {
  const path = operation.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const value = name in pathValues ? pathValues[name] : validValue(pathParameters(operation).find((p) => p.name === name)!.schema, name, operation.path);
    return encodeURIComponent(String(value));
  });
  const required = queryParameters(operation)
    .filter((parameter) => parameter.required && !query.includes(`${parameter.name}=`))
    .map((parameter) => `${parameter.name}=${encodeURIComponent(String(validValue(parameter.schema, parameter.name)))}`);
  const parts = [...required, query].filter(Boolean);
  return parts.length > 0 ? `${path}?${parts.join('&')}` : path;
}

/** A value as a failure names it: long ones by their length. */
const shown = (text: string) => (text.length > 40 ? `<${text.length} characters>` : text);
const labelOf = (operation: Operation) => `${operation.method} ${operation.path}`;
const validBodyOf = (operation: Operation) => (operation.body ? JSON.stringify(validValue(operation.body, 'body')) : undefined);

function bodyRequests(operation: Operation): BadRequest[] {
  if (!operation.body) return [];
  const { method } = operation;
  const url = urlOf(operation);
  const label = labelOf(operation);
  const base = validValue(operation.body, 'body');
  const whole: BadRequest[] = [
    { label: `${label} malformed JSON`, method, url, payload: '{"model": "A", ' },
    { label: `${label} an array`, method, url, payload: JSON.stringify([base]) },
    { label: `${label} a string`, method, url, payload: JSON.stringify('text') },
    { label: `${label} a number`, method, url, payload: '42' },
    { label: `${label} as text/plain`, method, url, payload: JSON.stringify(base), contentType: 'text/plain' },
    { label: `${label} over 1 MiB`, method, url, payload: JSON.stringify({ ...(base as object), pad: 'x'.repeat(1024 * 1024 + 16) }) },
  ];
  const fields = fieldsOf(operation.body).flatMap(({ path, name, schema }) =>
    wrongValuesOf(schema, name).map(({ value, why, schemaError }) => ({
      label: `${label} ${path.join('.')} = ${shown(JSON.stringify(value))} (${why})`,
      method,
      url,
      payload: JSON.stringify(withValueAt(base, path, value)),
      field: path.join('.'),
      only422: schemaError,
    })),
  );
  return [...whole, ...fields];
}

function wrongPathValues(parameter: Parameter): Array<{ value: string; schemaError: boolean }> {
  switch (typeOf(parameter.schema)) {
    case 'integer':
      return [
        ...['abc', '1.5', '0', '-1', String(INT_MAX + 1)].map((value) => ({ value, schemaError: true })),
        { value: String(INT_MAX), schemaError: false },
      ];
    case 'enum':
      return [{ value: 'nope', schemaError: true }];
    default:
      return [{ value: 'has space', schemaError: true }, { value: 'X'.repeat((parameter.schema.maxLength ?? 64) + 1), schemaError: true }];
  }
}

function pathRequests(operation: Operation): BadRequest[] {
  const payload = validBodyOf(operation);
  return pathParameters(operation).flatMap((parameter) =>
    wrongPathValues(parameter).map(({ value, schemaError }) => ({
      label: `${labelOf(operation)} path ${parameter.name} = ${shown(value)}`,
      method: operation.method,
      url: urlOf(operation, { [parameter.name]: value }),
      payload,
      // a well-formed id that names nothing: 404 (or the 422 of a body id it leads to)
      ...(schemaError ? { field: parameter.name, only422: true } : {}),
    })),
  );
}

function wrongQueryValues(parameter: Parameter): string[] {
  const schema = nonNull(parameter.schema);
  switch (typeOf(schema)) {
    case 'integer':
      return [
        'abc',
        '1.5',
        ...((schema.minimum ?? 0) >= 1 ? ['0', '-1'] : []),
        ...(schema.maximum !== undefined && schema['x-cap'] === undefined ? [String(schema.maximum + 1)] : []),
      ];
    case 'number':
      return ['abc'];
    case 'boolean':
      return ['maybe'];
    case 'enum':
      return ['NOPE'];
    case 'string':
      if (schema.format === 'date') return ['2024-02-30', '2024-13-01', 'abc'];
      return [
        ...(schema.pattern && !new RegExp(schema.pattern, 'u').test('has space') ? ['has space'] : []),
        ...(schema.maxLength !== undefined ? ['x'.repeat(schema.maxLength + 1)] : []),
      ];
    default:
      return [];
  }
}

function queryRequests(operation: Operation): BadRequest[] {
  const payload = validBodyOf(operation);
  return queryParameters(operation).flatMap((parameter) => {
    const valid = encodeURIComponent(String(validValue(parameter.schema, parameter.name)));
    const values = [...wrongQueryValues(parameter).map(encodeURIComponent), `${valid}&${parameter.name}=${valid}`];
    return values.map((value) => ({
      label: `${labelOf(operation)} query ${parameter.name}=${shown(value)}`,
      method: operation.method,
      url: urlOf(operation, {}, `${parameter.name}=${value}`),
      payload,
      field: parameter.name,
      only422: true,
    }));
  });
}

// ---- sending and judging ------------------------------------------------------------------------------

const auditCount = async () =>
  (await t.service.deps.database.read((q) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from audit_logs`)))[0]!.n;

/** What is wrong with the answer to a request that must be refused, or undefined. */
async function problemOf(request: BadRequest): Promise<string | undefined> {
  const before = await auditCount();
  const response = await t.service.app.inject({
    method: request.method as 'GET',
    url: request.url,
    headers: {
      authorization: `Bearer ${t.adminToken}`,
      'x-api-key': KEY,
      ...(request.payload === undefined ? {} : { 'content-type': request.contentType ?? 'application/json' }),
    },
    ...(request.payload === undefined ? {} : { payload: request.payload }),
  });
  const written = (await auditCount()) - before;
  const answer = `${response.statusCode} ${response.body.slice(0, 200)}`;
  const problems: string[] = [];
  if (response.statusCode < 400 || response.statusCode >= 500) problems.push('not a 4xx');
  if (request.only422 && response.statusCode !== 422) problems.push('not 422');
  let body: { msg?: unknown; code?: unknown; field?: unknown } = {};
  try {
    body = response.json();
  } catch {
    problems.push('not JSON');
  }
  if (!String(response.headers['content-type'] ?? '').startsWith('application/json')) problems.push('no JSON content type');
  if (typeof body.msg !== 'string' || typeof body.code !== 'string') problems.push('no string msg and code');
  if (response.statusCode === 422 && request.field !== undefined) {
    const field = String(body.field ?? '');
    // a schema error names the field itself (or inside it); a refused id in a list may name the list
    const named = field === request.field || field.startsWith(`${request.field}.`) || (!request.only422 && request.field.startsWith(`${field}.`));
    if (!named) problems.push(`field ${JSON.stringify(body.field)} is not ${request.field}`);
  }
  if (written !== 0) problems.push(`${written} audit record(s) written`);
  return problems.length > 0 ? `${request.label}: ${problems.join(', ')} → ${answer}` : undefined;
}

async function problemsOf(requests: BadRequest[]): Promise<string[]> {
  const problems: string[] = [];
  for (const request of requests) {
    const problem = await problemOf(request);
    if (problem) problems.push(problem);
  }
  return problems;
}

describe('bad input to every tracking operation', () => {
  it('covers the whole document; only the operations without input are left out', () => {
    expect(operations.length).toBeGreaterThan(50);
    const inputless = operations.filter((operation) => operation.parameters.length === 0 && !operation.body).map(labelOf);
    expect(inputless.sort()).toEqual([...INPUTLESS].sort());
  });

  it('refuses malformed, mistyped and oversized bodies and wrong field values with 4xx { msg, code }, writing nothing', async () => {
    const requests = operations.flatMap(bodyRequests);
    expect(requests.length).toBeGreaterThan(200);
    expect(await problemsOf(requests)).toEqual([]);
  });

  it('refuses wrong path parameters: 422 naming the parameter, 404 for an id that names nothing', async () => {
    const requests = operations.flatMap(pathRequests);
    expect(requests.length).toBeGreaterThan(60);
    expect(await problemsOf(requests)).toEqual([]);
  });

  it('refuses wrong-typed query parameters with 422 naming the parameter, never a 500', async () => {
    const requests = operations.flatMap(queryRequests);
    expect(requests.length).toBeGreaterThan(150);
    expect(await problemsOf(requests)).toEqual([]);
  });
});
