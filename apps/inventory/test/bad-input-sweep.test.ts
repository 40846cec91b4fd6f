/**
 * Contract §7 ("bad input, for every endpoint: a clear 4xx with msg and code, and nothing written") and §2
 * (every error is `{ msg, code }`; a validation failure is 400 naming the field), swept over every operation
 * of the service's own OpenAPI document that takes a JSON body: malformed JSON, an array or a string for the
 * object, each property with a wrong type, each integer id as 0, -1 and 2147483648, each quantity as 0 and -1
 * where the schema says it is positive (-1 where it may be 0), each id field as an unknown id and as a record of
 * another company, the body sent to another company's record, to a missing one and to an impossible path id,
 * and a body over 1 MiB. Each call is made by the SUPER_ADMIN and by an ALPHA SUPERVISOR (every code but
 * system_user, system_permission and crossDomain; the borrower too where only the holder may act), on path ids
 * that exist, so the body is what fails. "Nothing written": the audit log (every business table has its
 * triggers) and the technical tables a call could fill (scan drafts, the two outboxes) keep their counts.
 *
 * Skipped, because a 2xx with such a body is legitimate:
 *  - operations without a JSON body (approve, withdraw, close, accept, the DELETEs of a material, stock row,
 *    supplier, image or BOM draft, the removed scrap endpoints, the outbox retries): a body is not read;
 *  - DELETE /scan-draft: its JSON body is optional and free-form (`{ biz_type, request_id }` or the query,
 *    decisions: Scan drafts 4); only malformed JSON is sent to it;
 *  - unknown and foreign ids where they are decided answers, not errors (ANSWERS_UNKNOWN_IDS below), and
 *    another company's ids from the SUPER_ADMIN where the body names no company (cross-domain callers act on
 *    every company's records);
 *  - the multipart routes (import preview and execute, image search, material images) are swept separately,
 *    for "not a file / not xlsx / not an image" and a JSON body.
 */
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMaterial, flowCast, queryRows, type FlowCast, type MaterialJson, type StockRowJson } from './fixtures.js';
import { buildTestInventory, type TestInventory, type TestUser } from './helpers.js';
import { approveOk, materialWithStock, submitOk } from './outbound-fixtures.js';
import { approveBorrowOk, borrowedLine, submitBorrowOk } from './borrow-fixtures.js';
import { shipFromRow } from './returns-fixtures.js';
import { heldEntry, stockScrapOk } from './scrap-fixtures.js';
import { startSession } from './stocktake-fixtures.js';
import { multipartBody } from './support/multipart.js';

const INTERNAL_KEY = 'sweep-internal-key-0123456789';
const JSON_TYPE = { 'content-type': 'application/json' };
const MISSING_ID = 999999;

interface Schema {
  type?: string | string[];
  properties?: Record<string, Schema>;
  required?: string[];
  items?: Schema;
  anyOf?: Schema[];
  enum?: unknown[];
  minimum?: number;
  exclusiveMinimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  minItems?: number;
  pattern?: string;
  format?: string;
}

interface Operation {
  method: string;
  /** The documented path, e.g. /api/v1/borrow/{id}/return. */
  path: string;
  schema: Schema;
}

type Segment = string | number;

/** One bad body and what the answer must say about it beyond "4xx, msg, code, nothing written". */
interface BadBody {
  label: string;
  payload: string;
  /** 400 VALIDATION_FAILED naming this field. */
  field?: string;
  /** Exactly this status (malformed, wrong shape, oversized). */
  status?: number;
}

interface Actor {
  name: string;
  headers: Record<string, string>;
}

let t: TestInventory;
let w: World;
let operations: Operation[];
let document: { paths: Record<string, Record<string, OperationObject>> };

interface World extends FlowCast {
  supervisor: TestUser;
  material: MaterialJson;
  child: MaterialJson;
  row: StockRowJson;
  outboundRequestId: number;
  approvedOutboundRequestId: number;
  approvedBorrowRequestId: number;
  /** A shipped line with quantity left to return. */
  outboundLineId: number;
  ledgerEntryId: number;
  borrowRequestId: number;
  borrowLineId: number;
  scrapRequestId: number;
  purchaseId: number;
  supplierId: number;
  sessionId: number;
  /** The same kinds of record of BETA: another company's ids (contract §3: 404, or 403 on a scan). */
  beta: Record<string, number>;
}

/** Every kind of record a body or path may name, of ALPHA, made through the API. */
async function sweepWorld(app: TestInventory): Promise<World> {
  const cast = await flowCast(app);
  const supervisor = await app.user('SUPERVISOR', 'ALPHA');
  const { material, rows } = await materialWithStock(app, 'ALPHA', [50]);
  const child = await createMaterial(app, app.adminToken, { company_name: 'ALPHA' });
  const outbound = await submitOk(app, cast.sales.token, [{ base_id: material.id, quantity: 1 }]);
  const { entry } = await heldEntry(cast, 10, 2);
  const line = await shipFromRow(cast, rows[0]!, 2);
  const approvedOutbound = await approveOk(app, cast.mgr.token, (await submitOk(app, cast.sales.token, [{ base_id: material.id, quantity: 1 }])).id);
  const approvedBorrow = await approveBorrowOk(app, cast.mgr.token, (await submitBorrowOk(app, cast.sales.token, [{ base_id: material.id, quantity: 1 }])).id);
  const borrowRequest = await submitBorrowOk(app, cast.sales.token, [{ base_id: material.id, quantity: 1 }]);
  const borrowed = await borrowedLine(cast);
  const scrap = await stockScrapOk(cast, rows[0]!, 1);
  const created = async (path: string, body: unknown) => {
    const response = await app.request('POST', path, { token: supervisor.token, body });
    if (response.statusCode !== 201) throw new Error(`${path} failed (${response.statusCode}): ${response.body}`);
    return response.json();
  };
  const purchase = await created('/api/v1/purchase', { items: [{ base_id: material.id, quantity: 3 }] });
  const supplier = await created('/api/v1/suppliers', { name: '扫查供应商' });
  // last: an active session freezes its scope, and the fixtures above move stock
  const session = await startSession(app, cast.mgr.token, { scope_type: 'active', scope_config: { locations: ['SWEEP/01'] } });
  const beta = await betaRecords(app, cast);
  return {
    beta,
    ...cast,
    supervisor,
    material,
    child,
    row: rows[0]!,
    outboundRequestId: outbound.id,
    approvedOutboundRequestId: approvedOutbound.id,
    approvedBorrowRequestId: approvedBorrow.id,
    outboundLineId: line.id,
    ledgerEntryId: entry.id,
    borrowRequestId: borrowRequest.id,
    borrowLineId: borrowed.line.id,
    scrapRequestId: scrap.id,
    purchaseId: purchase.requests[0].id,
    supplierId: supplier.id,
    sessionId: session.session_id,
  };
}

/** One record of each kind of BETA, made by BETA's own users. */
async function betaRecords(app: TestInventory, cast: FlowCast): Promise<Record<string, number>> {
  const as = (user: TestUser) => async (path: string, body: unknown, status = 201) => {
    const response = await app.request('POST', path, { token: user.token, body });
    if (response.statusCode !== status) throw new Error(`${path} failed (${response.statusCode}): ${response.body}`);
    return response.json();
  };
  const mgr = as(cast.betaMgr);
  const { material, rows } = await materialWithStock(app, 'BETA', [20]);
  const { line, entry } = await heldEntry(cast, 10, 2, { company: 'BETA' });
  const outbound = await submitOk(app, cast.betaSales.token, [{ base_id: material.id, quantity: 1 }]);
  const borrowRequest = await submitBorrowOk(app, cast.betaSales.token, [{ base_id: material.id, quantity: 1 }]);
  const lent = await submitBorrowOk(app, cast.betaSales.token, [{ base_id: material.id, quantity: 2 }]);
  await mgr(`/api/v1/borrow/request/${lent.id}/approve`, undefined, 200);
  const slip = await mgr('/api/v1/borrow/dispatch', { request_id: lent.id, borrower_id: cast.betaSales.id, lines: [{ barcode: rows[0]!.sku, quantity: 2 }] });
  const scrap = await mgr('/api/v1/scrap/request', { reason: 'BETA 报废', items: [{ source_table: 'stock_buy', stock_id: rows[0]!.id, scrap_qty: 1 }], approver_ids: [cast.betaMgr.id] });
  const purchase = await mgr('/api/v1/purchase', { items: [{ base_id: material.id, quantity: 3 }] });
  const supplier = await mgr('/api/v1/suppliers', { name: 'BETA 供应商' });
  const session = await startSession(app, cast.betaMgr.token, { scope_type: 'active', scope_config: { locations: ['SWEEP/B1'] } });
  return {
    material: material.id,
    row: rows[0]!.id,
    child: material.id,
    user: cast.betaSales.id,
    user2: cast.betaSales.id,
    mgr: cast.betaMgr.id,
    outboundRequest: outbound.id,
    approvedOutboundRequest: outbound.id,
    approvedBorrowRequest: borrowRequest.id,
    outboundLine: line.id,
    ledgerEntry: entry.id,
    borrowRequest: borrowRequest.id,
    borrowLine: slip.lines[0].id,
    scrapRequest: scrap.id,
    purchase: purchase.requests[0].id,
    supplier: supplier.id,
    session: session.session_id,
  };
}

beforeAll(async () => {
  t = await buildTestInventory({ config: { internalApiKey: INTERNAL_KEY } });
  w = await sweepWorld(t);
  document = (await t.request('GET', '/api/v1/openapi.json')).json() as typeof document;
  operations = jsonBodyOperations(document.paths);
});
afterAll(() => t?.close());

interface OperationObject {
  requestBody?: { content?: Record<string, { schema?: Schema }> };
}

function jsonBodyOperations(paths: Record<string, Record<string, OperationObject>>): Operation[] {
  return Object.entries(paths).flatMap(([path, item]) =>
    ['post', 'put', 'patch', 'delete'].flatMap((method) => {
      const schema = item[method]?.requestBody?.content?.['application/json']?.schema;
      return schema ? [{ method: method.toUpperCase(), path, schema }] : [];
    }),
  );
}

/** DELETE /scan-draft reads an optional, free-form body (see the file comment). */
const freeFormBody = (operation: Operation) => operation.method === 'DELETE' && operation.path === '/api/v1/scan-draft';

// ---------------------------------------------------------------------------------------------------------
// Who calls, and on which ids

/** The SUPER_ADMIN, and a holder of the route's codes where one exists without the SUPER_ADMIN role. */
function actorsOf(operation: Operation): Actor[] {
  const bearer = (name: string, token: string) => ({ name, headers: { authorization: `Bearer ${token}` } });
  if (operation.path.startsWith('/api/v1/internal/')) return [{ name: 'X-API-Key', headers: { 'x-api-key': INTERNAL_KEY } }];
  const admin = bearer('SUPER_ADMIN', t.adminToken);
  if (/^\/api\/v1\/(users|permissions)\b/.test(operation.path)) return [admin]; // system_user / system_permission
  if (operation.path === '/api/v1/auth/login') return [{ name: 'anonymous', headers: {} }];
  const callers = [admin, bearer('SUPERVISOR', w.supervisor.token)];
  // only the current holder may return or transfer a borrowed line (spec 4.4): sales, the borrower
  if (/\/borrow\/\{id\}\/(return|transfer|split)$/.test(operation.path)) callers.push(bearer('holder', w.sales.token));
  return callers;
}

/** The record each path parameter names. */
const PATH_RECORDS: Array<[RegExp, string]> = [
  [/\/users\/\{id\}/, 'user'],
  [/\/inbound\/base\/\{id\}/, 'material'],
  [/\/stock\/defective\/\{id\}/, 'ledgerEntry'],
  [/\/stock\/\{id\}/, 'row'],
  [/\/outbound\/request\/\{id\}/, 'outboundRequest'],
  [/\/borrow\/request\/\{id\}/, 'borrowRequest'],
  [/\/borrow\/\{id\}/, 'borrowLine'],
  [/\/scrap\/request\/\{id\}/, 'scrapRequest'],
  [/\/purchase\/\{id\}/, 'purchase'],
  [/\/suppliers\/\{id\}/, 'supplier'],
];

/** The kind of record a body's id field names. */
const FIELD_RECORDS: Record<string, string> = {
  base_id: 'material',
  parent_id: 'material',
  child_id: 'child',
  child_ids: 'child',
  stock_id: 'row',
  ids: 'row',
  request_id: 'outboundRequest',
  outbound_id: 'outboundLine',
  borrower_id: 'user',
  to_user_id: 'user2',
  reissue_applicant_id: 'user',
  approver_ids: 'mgr',
  session_id: 'session',
  borrow_ids: 'borrowLine',
  supplier_id: 'supplier',
};

/** The kind of record an id field names in the body of the operation at `path`. */
function recordKindOf(name: string, path: string): string | undefined {
  if (name === 'request_id' && path.endsWith('/borrow/dispatch')) return 'approvedBorrowRequest';
  if (name === 'request_id' && path === '/api/v1/outbound') return 'approvedOutboundRequest';
  if (name === 'request_id' && /\/stock$/.test(path)) return 'purchase';
  if (name === 'ids' && path.startsWith('/api/v1/purchase/')) return 'purchase';
  return FIELD_RECORDS[name];
}

/** Records of ALPHA (the callers' company) by kind. */
function alphaRecords(): Record<string, number> {
  return {
    material: w.material.id,
    child: w.child.id,
    row: w.row.id,
    user: w.sales.id,
    user2: w.sales2.id,
    mgr: w.mgr.id,
    outboundRequest: w.outboundRequestId,
    approvedOutboundRequest: w.approvedOutboundRequestId,
    approvedBorrowRequest: w.approvedBorrowRequestId,
    outboundLine: w.outboundLineId,
    ledgerEntry: w.ledgerEntryId,
    borrowRequest: w.borrowRequestId,
    borrowLine: w.borrowLineId,
    scrapRequest: w.scrapRequestId,
    purchase: w.purchaseId,
    supplier: w.supplierId,
    session: w.sessionId,
  };
}

/** The documented path with its parameter filled by a record of `records` (ALPHA's by default), else MISSING_ID. */
function concretePath(path: string, records = alphaRecords()): string {
  const plain = path.replace('/api/v1/transactions/borrow/', '/api/v1/borrow/');
  if (/\/permissions\/role\/\{role_code\}/.test(plain)) return path.replace('{role_code}', 'SALES');
  const kind = PATH_RECORDS.find(([pattern]) => pattern.test(plain))?.[1];
  return path.replace(/\{[^}]+\}/, String((kind && records[kind]) ?? MISSING_ID));
}

/** The kind of record a path names, if any. */
const pathRecordOf = (path: string) => PATH_RECORDS.find(([pattern]) => pattern.test(path.replace('/api/v1/transactions/borrow/', '/api/v1/borrow/')))?.[1];

// ---------------------------------------------------------------------------------------------------------
// Bodies from the schema

let unique = 0;

/** The schema a value must match: the first branch of a nullable union, or the schema itself. */
const mainBranch = (schema: Schema): Schema => schema.anyOf?.find((branch) => branch.type !== 'null') ?? schema;

function typesOf(schema: Schema): string[] {
  if (schema.anyOf) return [...new Set(schema.anyOf.flatMap(typesOf))].filter((type) => type !== 'null');
  if (schema.type === undefined) return [];
  return (Array.isArray(schema.type) ? schema.type : [schema.type]).filter((type) => type !== 'null');
}

/** A value of an id field: a record of ALPHA that exists. */
function idValue(name: string, path: string): number | undefined {
  if (name === 'transfer_ids') return MISSING_ID;
  const kind = recordKindOf(name, path);
  return kind ? alphaRecords()[kind] : undefined;
}

function stringValue(name: string, schema: Schema): string {
  if (schema.format === 'date' || schema.pattern?.includes('\\d{4}')) return '2026-03-04';
  if (schema.format === 'email') return 'sweep@example.com';
  const byName: Record<string, string> = {
    username: `sweep_${++unique}`,
    password: 'password-1',
    category: 'ALPHA/扫查',
    barcode: w.row.sku,
    company_name: 'ALPHA',
    to_location: 'SWEEP/02',
    scope_type: 'full',
  };
  const value = byName[name] ?? `扫查${++unique}`;
  return schema.pattern && !new RegExp(schema.pattern).test(value) ? `sweep${unique}` : value.slice(0, schema.maxLength ?? 64);
}

/**
 * A value the schema accepts in the body of the operation at `path`: required properties only (and base_id, which
 * names the material where an item may name it otherwise), one element in an array.
 */
function sample(schema: Schema, name: string, path: string): unknown {
  const branch = mainBranch(schema);
  if (branch.enum) return branch.enum[0];
  const type = typesOf(branch)[0];
  if (type === 'object') {
    const body: Record<string, unknown> = {};
    const keys = [...(branch.required ?? []), ...(branch.properties?.base_id && path !== '/api/v1/scan-draft' ? ['base_id'] : [])];
    for (const key of new Set(keys)) body[key] = sample(branch.properties![key]!, key, path);
    return body;
  }
  if (type === 'array') return [sample(branch.items ?? {}, name, path)];
  if (type === 'integer' || type === 'number') return idValue(name, path) ?? Math.max(1, branch.minimum ?? 1);
  if (type === 'boolean') return false;
  if (type === 'string') return stringValue(name, branch);
  return 'x';
}

/** The operation's body: its required properties, and company_name for the cross-domain caller. */
function baseBody(operation: Operation): Record<string, unknown> {
  const { schema, path } = operation;
  const body = sample(schema, '', path) as Record<string, unknown>;
  if (schema.properties?.company_name) body.company_name = 'ALPHA';
  // reissue fields are read only with need_reissue (decisions: Returns 4)
  if (schema.properties?.need_reissue) body.need_reissue = true;
  // a body of optional fields only (an edit, a rejection) says something: its name, remark or reason
  if (!schema.required?.length) {
    for (const key of ['name', 'remark', 'reason']) if (schema.properties?.[key]) body[key] = sample(schema.properties[key], key, path);
  }
  return body;
}

/** `body` with `value` at `path`, building what is missing on the way from the schema. */
function withValue(body: Record<string, unknown>, operation: Operation, path: Segment[], value: unknown): Record<string, unknown> {
  const copy = structuredClone(body);
  let container: Record<Segment, unknown> = copy;
  let containerSchema = operation.schema;
  path.forEach((segment, index) => {
    if (index === path.length - 1) {
      container[segment] = value;
      return;
    }
    const childSchema = typeof segment === 'number' ? mainBranch(containerSchema).items! : mainBranch(containerSchema).properties![segment]!;
    container[segment] ??= sample(childSchema, String(segment), operation.path);
    container = container[segment] as Record<Segment, unknown>;
    containerSchema = childSchema;
  });
  return copy;
}

interface Field {
  path: Segment[];
  name: string;
  schema: Schema;
}

/** Every property of the body, those of an array's first element and of nested objects included. */
function fieldsOf(schema: Schema, prefix: Segment[] = [], name = ''): Field[] {
  const branch = mainBranch(schema);
  const type = typesOf(branch)[0];
  if (type === 'object' && branch.properties && prefix.length < 4) {
    return Object.entries(branch.properties).flatMap(([key, child]) => [{ path: [...prefix, key], name: key, schema: child }, ...fieldsOf(child, [...prefix, key], key)]);
  }
  if (type === 'array' && branch.items && prefix.length < 4) {
    return [{ path: [...prefix, 0], name, schema: branch.items }, ...fieldsOf(branch.items, [...prefix, 0], name)];
  }
  return [];
}

/** A value of another JSON type than every type the field takes (a number as an object, a string as an array). */
function wrongTypeFor(schema: Schema): unknown {
  const types = typesOf(schema);
  if (types.length === 0) return undefined; // takes anything
  if (types.includes('string')) return types.includes('array') ? {} : [];
  if (types.includes('number') || types.includes('integer')) return {};
  if (types.includes('boolean')) return 'yes';
  if (types.includes('array')) return {};
  return [];
}

const isIdField = (field: Field) => /(^|_)ids?$/.test(field.name) && typesOf(field.schema).includes('integer');
const isQuantityField = (field: Field) => /(^|_)(quantity|qty)$/.test(field.name) && typesOf(field.schema).some((type) => type === 'number' || type === 'integer');

/** Whether every numeric branch of the field refuses `value` by its bounds. */
function boundsRefuse(schema: Schema, value: number): boolean {
  const numeric = (schema.anyOf ?? [schema]).filter((branch) => typesOf(branch).some((type) => type === 'number' || type === 'integer'));
  return numeric.length > 0 && numeric.every((branch) =>
    (branch.minimum !== undefined && value < branch.minimum) ||
    (branch.exclusiveMinimum !== undefined && value <= branch.exclusiveMinimum) ||
    (branch.maximum !== undefined && value > branch.maximum));
}

const dotted = (path: Segment[]) => path.join('.');

function shapeCases(operation: Operation): BadBody[] {
  const malformed: BadBody = { label: 'malformed JSON', payload: '{"items": [', status: 400 };
  if (freeFormBody(operation)) return [malformed];
  const base = baseBody(operation);
  return [
    malformed,
    { label: 'an array for the object', payload: JSON.stringify([base]), status: 400 },
    { label: 'a string for the object', payload: JSON.stringify('body'), status: 400 },
  ];
}

function wrongTypeCases(operation: Operation): BadBody[] {
  if (freeFormBody(operation)) return [];
  const base = baseBody(operation);
  return fieldsOf(operation.schema).flatMap((field) => {
    const wrong = wrongTypeFor(field.schema);
    if (wrong === undefined) return [];
    const payload = JSON.stringify(withValue(base, operation, field.path, wrong));
    return [{ label: `${dotted(field.path)} = ${JSON.stringify(wrong)}`, payload, field: dotted(field.path), status: 400 }];
  });
}

function numberCases(operation: Operation, select: (field: Field) => boolean, valuesOf: (field: Field) => number[]): BadBody[] {
  if (freeFormBody(operation)) return [];
  const base = baseBody(operation);
  return fieldsOf(operation.schema)
    .filter(select)
    .flatMap((field) =>
      valuesOf(field).map((value) => ({
        label: `${dotted(field.path)} = ${value}`,
        payload: JSON.stringify(withValue(base, operation, field.path, typesOf(field.schema).includes('array') ? [value] : value)),
        // a bound the schema declares is a validation failure naming the field; otherwise any 4xx
        ...(boundsRefuse(field.schema, value) ? { field: dotted(field.path), status: 400 } : {}),
      })),
    );
}

const idCases = (operation: Operation) => numberCases(operation, isIdField, () => [0, -1, 2147483648]);

/** 0 and -1 where the schema says positive; -1 where it allows 0 (a count of zero is a real count). */
const quantityCases = (operation: Operation) =>
  numberCases(operation, isQuantityField, (field) => (mainBranch(field.schema).exclusiveMinimum === 0 ? [0, -1] : [-1]));

/**
 * Reads and batches that answer an unknown or foreign id without an error, as decided: bom-match-stock is a
 * query (an unknown child matches no stock), a purchase batch lists it among `failed` (decisions: Purchasing 7),
 * and a scan draft's ids are display fields kept as sent (decisions: Scan drafts 3).
 */
const ANSWERS_UNKNOWN_IDS = new Set(['/api/v1/outbound/bom-match-stock', '/api/v1/purchase/batch-approve', '/api/v1/scan-draft']);

/**
 * Each id field as an id that does not exist and as the same kind of record of BETA (contract §7: unknown ids,
 * ids of another company). BETA's ids go to the SUPER_ADMIN only where the body names ALPHA in company_name:
 * elsewhere a cross-domain caller may act on any company's records (a BOM, a borrow line's scrap request and a
 * stocktake session belong to their record's company; decisions: BOM and import 5, Scrap 4).
 */
function foreignIdCases(operation: Operation, actor: Actor): BadBody[] {
  if (freeFormBody(operation) || ANSWERS_UNKNOWN_IDS.has(operation.path)) return [];
  const base = baseBody(operation);
  const foreignAllowed = actor.name !== 'SUPER_ADMIN' || Boolean(operation.schema.properties?.company_name);
  return fieldsOf(operation.schema)
    .filter(isIdField)
    .flatMap((field) => {
      const kind = recordKindOf(field.name, operation.path);
      const values: Array<[string, number]> = [['unknown', MISSING_ID]];
      if (kind && foreignAllowed) values.push([`BETA's ${kind}`, w.beta[kind]!]);
      return values.map(([label, value]) => ({ label: `${dotted(field.path)} = ${label} ${value}`, payload: JSON.stringify(withValue(base, operation, field.path, value)) }));
    });
}

function oversizedCase(operation: Operation): BadBody[] {
  const filler = 'x'.repeat(1024 * 1024 + 16);
  return [{ label: 'a body over 1 MiB', payload: JSON.stringify({ ...(freeFormBody(operation) ? {} : baseBody(operation)), remark: filler }), status: 413 }];
}

// ---------------------------------------------------------------------------------------------------------
// Sending and judging

async function writeCounts(): Promise<string> {
  const [row] = await queryRows<Record<string, number>>(
    t,
    sql`select (select count(*)::int from audit_logs) as audit_logs, (select count(*)::int from scan_drafts) as scan_drafts,
               (select count(*)::int from notification_outbox) as notification_outbox, (select count(*)::int from mail_outbox) as mail_outbox`,
  );
  return JSON.stringify(row);
}

/** Sends every bad body of every operation as every actor; answers one line per answer that breaks the contract. */
async function sweep(
  casesOf: (operation: Operation, actor: Actor) => BadBody[],
  options: { urlOf?: (operation: Operation) => string | undefined; actors?: (operation: Operation) => Actor[] } = {},
): Promise<{ problems: string[]; sent: number }> {
  const problems: string[] = [];
  let sent = 0;
  let before = await writeCounts();
  for (const operation of operations) {
    const url = (options.urlOf ?? ((o: Operation) => concretePath(o.path)))(operation);
    if (url === undefined) continue;
    for (const actor of (options.actors ?? actorsOf)(operation)) {
      for (const bad of casesOf(operation, actor)) {
        const response = await t.service.app.inject({ method: operation.method as 'POST', url, headers: { ...JSON_TYPE, ...actor.headers }, payload: bad.payload });
        sent += 1;
        const after = await writeCounts();
        const where = `${operation.method} ${operation.path} as ${actor.name}, ${bad.label}`;
        problems.push(...judge(response.statusCode, response.body, bad).map((problem) => `${where}: ${problem}`));
        if (after !== before) problems.push(`${where}: wrote ${before} -> ${after}`);
        before = after;
      }
    }
  }
  return { problems, sent };
}

function judge(status: number, text: string, bad: BadBody): string[] {
  const problems: string[] = [];
  let body: Record<string, unknown> | undefined;
  try {
    body = JSON.parse(text) as Record<string, unknown>;
  } catch {
    problems.push(`answer is not JSON: ${text.slice(0, 120)}`);
  }
  if (status < 400 || status >= 500) problems.push(`status ${status}: ${text.slice(0, 200)}`);
  else if (bad.status !== undefined && status !== bad.status) problems.push(`status ${status}, expected ${bad.status}: ${text.slice(0, 200)}`);
  if (body && (typeof body.msg !== 'string' || typeof body.code !== 'string')) problems.push(`no string msg and code: ${text.slice(0, 200)}`);
  if (body && bad.field !== undefined && status < 500 && (body.code !== 'VALIDATION_FAILED' || body.field !== bad.field)) {
    problems.push(`expected VALIDATION_FAILED naming ${bad.field}, got ${String(body.code)} naming ${String(body.field)}: ${String(body.msg)}`);
  }
  return problems;
}

describe('every JSON body of the inventory service (contract §7, §2)', () => {
  it('reads the operations from the OpenAPI document', () => {
    expect(operations.length).toBeGreaterThan(60);
    const paths = operations.map((operation) => `${operation.method} ${operation.path}`);
    expect(paths).toEqual(expect.arrayContaining(['POST /api/v1/outbound/request', 'POST /api/v1/borrow/{id}/split', 'PATCH /api/v1/purchase/{id}/approve']));
  });

  it('refuses malformed JSON, an array and a string for the object: 400 with msg and code, nothing written', async () => {
    const { problems, sent } = await sweep(shapeCases);
    expect(sent).toBeGreaterThan(300);
    expect(problems).toEqual([]);
  });

  it('refuses every property with a wrong type: 400 VALIDATION_FAILED naming the field, nothing written', async () => {
    const { problems, sent } = await sweep(wrongTypeCases);
    expect(sent).toBeGreaterThan(500);
    expect(problems).toEqual([]);
  });

  it('refuses every integer id as 0, -1 and 2147483648: a 4xx with msg and code, nothing written', async () => {
    const { problems, sent } = await sweep(idCases);
    expect(sent).toBeGreaterThan(200);
    expect(problems).toEqual([]);
  });

  it('refuses every quantity as 0 and -1 where it must be positive, and -1 where it may be 0, writing nothing', async () => {
    const { problems, sent } = await sweep(quantityCases);
    expect(sent).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  it('refuses every id field naming a record that does not exist or is of another company: a 4xx, nothing written', async () => {
    const { problems, sent } = await sweep(foreignIdCases);
    expect(sent).toBeGreaterThan(100);
    expect(problems).toEqual([]);
  });

  it("refuses a body sent to another company's record (404), to one that does not exist (404) and to an id that cannot be one (400)", async () => {
    const withBody = (operation: Operation): BadBody[] => (freeFormBody(operation) ? [] : [{ label: 'its body', payload: JSON.stringify(baseBody(operation)), status: 404 }]);
    const recordPath = (operation: Operation) => Boolean(pathRecordOf(operation.path));
    // the ALPHA caller on BETA's record; both callers on a record that does not exist
    const foreign = await sweep(withBody, {
      urlOf: (operation) => (recordPath(operation) && !operation.path.includes('/users/') ? concretePath(operation.path, w.beta) : undefined),
      actors: (operation) => actorsOf(operation).filter((actor) => actor.name !== 'SUPER_ADMIN'),
    });
    const missing = await sweep(withBody, { urlOf: (operation) => (recordPath(operation) ? concretePath(operation.path, {}) : undefined) });
    const problems = [...foreign.problems, ...missing.problems];
    for (const id of ['0', '-1', '2147483648', 'abc']) {
      const invalid = await sweep((operation) => withBody(operation).map((bad) => ({ ...bad, field: 'id', status: 400 })), {
        urlOf: (operation) => (operation.path.includes('{id}') ? operation.path.replace('{id}', id) : undefined),
      });
      problems.push(...invalid.problems);
    }
    expect(foreign.sent + missing.sent).toBeGreaterThan(60);
    expect(problems).toEqual([]);
  });

  it('refuses a body over 1 MiB: 413 with msg and code, nothing written', async () => {
    const { problems } = await sweep(oversizedCase);
    expect(problems).toEqual([]);
  });
});

describe('every upload of the inventory service (contract §7: a file that is not xlsx, not an image, or no file)', () => {
  const uploads = () =>
    Object.entries(document.paths).flatMap(([path, item]) =>
      Object.entries(item).flatMap(([method, operation]) => (operation.requestBody?.content?.['multipart/form-data'] ? [{ method: method.toUpperCase(), path }] : [])),
    );
  const fieldsOf = (path: string): Record<string, string> => (path.startsWith('/api/v1/import/') ? { type: 'material', mode: 'create' } : {});

  it('answers a 4xx with msg and code and writes nothing', async () => {
    const found = uploads();
    expect(found.map((upload) => upload.path)).toEqual(expect.arrayContaining(['/api/v1/import/preview', '/api/v1/import/execute', '/api/v1/inbound/base/{id}/images']));
    const text = Buffer.from('名称,分类\n电阻,ALPHA/电子\n');
    const problems: string[] = [];
    let before = await writeCounts();
    for (const upload of found) {
      const url = concretePath(upload.path);
      const fields = fieldsOf(upload.path);
      const cases: Array<BadBody & { headers: Record<string, string>; body: Buffer | string }> = [
        { label: 'a JSON body', headers: JSON_TYPE, body: JSON.stringify({ ...fields, file: 'x' }), payload: '', status: 415 },
        { label: 'no file', ...multipartBody(fields), payload: '', status: 400 },
        { label: 'a text file named .xlsx', ...multipartBody(fields, { filename: 'data.xlsx', data: text }), payload: '' },
        { label: 'a text file named .png', ...multipartBody(fields, { filename: 'photo.png', contentType: 'image/png', data: text }), payload: '' },
      ];
      for (const actor of actorsOf({ method: upload.method, path: upload.path, schema: {} })) {
        for (const bad of cases) {
          const response = await t.service.app.inject({ method: upload.method as 'POST', url, headers: { ...bad.headers, ...actor.headers }, payload: bad.body });
          const after = await writeCounts();
          const where = `${upload.method} ${upload.path} as ${actor.name}, ${bad.label}`;
          problems.push(...judge(response.statusCode, response.body, bad).map((problem) => `${where}: ${problem}`));
          if (after !== before) problems.push(`${where}: wrote ${before} -> ${after}`);
          before = after;
        }
      }
    }
    expect(problems).toEqual([]);
  });
});

describe('found by the sweep', () => {
  it('a scan draft refuses a stock_id or base_id that no record can have (above the int4 range) and saves nothing', async () => {
    const drafts = async () => (await queryRows<{ n: number }>(t, sql`select count(*)::int as n from scan_drafts`))[0]!.n;
    const before = await drafts();
    for (const field of ['stock_id', 'base_id']) {
      const response = await t.request('POST', '/api/v1/scan-draft', {
        token: w.supervisor.token,
        body: { biz_type: 'outbound', request_id: w.outboundRequestId, items: [{ barcode: w.row.sku, quantity: 1, [field]: 2147483648 }] },
      });
      expect(response.statusCode, response.body).toBe(400);
      expect(response.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: `items.0.${field}` });
    }
    expect(await drafts()).toBe(before);
  });
});
