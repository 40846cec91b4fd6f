import http from 'node:http';
import type { Socket } from 'node:net';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { AppError } from '../errors.js';

/**
 * Answers of the framework itself in the one error shape of both services (contract §2): a URL that
 * cannot be decoded, a path parameter over the length limit, and the errors Node's HTTP parser raises
 * before any route runs (431 header overflow, 408 timeout, 400 garbage).
 */
export function frameworkErrorHandler(error: Error & { code?: string }, _request: FastifyRequest, reply: FastifyReply) {
  const answer = error.code === 'FST_ERR_MAX_PARAM_LENGTH'
    ? new AppError('URI_TOO_LONG', '请求路径参数过长')
    : new AppError('VALIDATION_FAILED', '请求地址不合法（无法解码）');
  return reply.code(answer.status).send(answer.toBody());
}

const CLIENT_ERRORS: Record<string, { status: number; body: { msg: string; code: string } }> = {
  HPE_HEADER_OVERFLOW: { status: 431, body: { msg: '请求头过大', code: 'HEADERS_TOO_LARGE' } },
  ERR_HTTP_REQUEST_TIMEOUT: { status: 408, body: { msg: '请求超时', code: 'REQUEST_TIMEOUT' } },
};
const MALFORMED_REQUEST = { status: 400, body: { msg: '请求格式不合法', code: 'VALIDATION_FAILED' } };

export function clientErrorHandler(error: Error & { code?: string }, socket: Socket) {
  if (error.code === 'ECONNRESET' || socket.destroyed) return;
  const { status, body } = CLIENT_ERRORS[error.code ?? ''] ?? MALFORMED_REQUEST;
  if (socket.writable) {
    const text = JSON.stringify(body);
    socket.write(
      `HTTP/1.1 ${status} ${http.STATUS_CODES[status]}\r\nContent-Length: ${Buffer.byteLength(text)}\r\n` +
        `Content-Type: application/json; charset=utf-8\r\nConnection: close\r\n\r\n${text}`,
    );
  }
  socket.destroy(error);
}

/**
 * PostgreSQL cannot store U+0000 in text ("invalid byte sequence"), so a NUL anywhere in a path
 * parameter, query or JSON body is refused before any handler runs, as a validation error naming the
 * field — for every route, whatever its schema declares.
 */
export async function refuseNulCharacters(request: FastifyRequest) {
  for (const [part, value] of [['params', request.params], ['query', request.query], ['body', request.body]] as const) {
    const field = nulField(value);
    if (field !== undefined) throw nulRefused(field || part);
  }
}

/** The refusal of a NUL character, naming the field that holds it (also for upload forms, readUpload). */
export function nulRefused(field: string): AppError {
  return new AppError('VALIDATION_FAILED', `字段 ${field} 不能包含 NUL 字符 (U+0000)`, { field });
}

/** The dotted path of the first string (or key) holding a NUL, or undefined. */
export function nulField(value: unknown, path = '', depth = 0): string | undefined {
  if (typeof value === 'string') return value.includes('\u0000') ? path : undefined;
  if (!value || typeof value !== 'object' || depth > 32 || Buffer.isBuffer(value)) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const innerPath = path ? `${path}.${key}` : key;
    if (key.includes('\u0000')) return innerPath;
    const found = nulField(inner, innerPath, depth + 1);
    if (found !== undefined) return found;
  }
  return undefined;
}

/** The parts of a JSON schema the null rule reads. */
interface BodySchema {
  type?: string | string[];
  nullable?: boolean;
  properties?: Record<string, BodySchema>;
  items?: BodySchema;
  anyOf?: BodySchema[];
  oneOf?: BodySchema[];
}

/**
 * A field sent as null that its schema does not take is dropped before validation, as if it had not
 * been sent: clients send null for an optional field they leave empty (`"sku": null` gets a generated
 * sku, `"remark": null` no remark). A required field sent as null is then missing (400 naming it); a
 * field that takes null (a clearable one) keeps it. Walks objects and arrays of objects in the body.
 */
function dropNullsOfFieldsWithoutNull(request: FastifyRequest): void {
  const schema = request.routeOptions.schema?.body as BodySchema | undefined;
  if (schema && request.body && typeof request.body === 'object') dropNulls(request.body, schema, 0);
}

function dropNulls(value: object, schema: BodySchema, depth: number): void {
  if (depth > 32) return;
  if (Array.isArray(value)) {
    if (schema.items) for (const item of value) if (item && typeof item === 'object') dropNulls(item as object, schema.items, depth + 1);
    return;
  }
  const fields = schema.properties;
  if (!fields) return;
  const record = value as Record<string, unknown>;
  for (const [key, inner] of Object.entries(record)) {
    const field = fields[key];
    if (!field) continue;
    if (inner === null) {
      if (!takesNull(field)) delete record[key];
    } else if (inner && typeof inner === 'object') {
      dropNulls(inner, field, depth + 1);
    }
  }
}

function takesNull(schema: BodySchema): boolean {
  if (schema.nullable || schema.type === 'null' || (Array.isArray(schema.type) && schema.type.includes('null'))) return true;
  return [...(schema.anyOf ?? []), ...(schema.oneOf ?? [])].some(takesNull);
}

/**
 * A query parameter sent empty (`?status=`) is no filter, as forms and clients send an unselected one, not
 * a value to validate: it is dropped before validation. A required one is then missing (400 naming it).
 */
function dropEmptyQueryValues(request: FastifyRequest): void {
  const query = request.query as Record<string, unknown> | undefined;
  if (!query || typeof query !== 'object') return;
  for (const key in query) if (query[key] === '') delete query[key];
}

/**
 * What a client leaves empty is not sent (the two rules above), before validation. A callback hook, not an
 * async one: it runs on every request, the hot paths' included.
 */
export function dropEmptyInput(request: FastifyRequest, _reply: FastifyReply, done: () => void): void {
  dropEmptyQueryValues(request);
  dropNullsOfFieldsWithoutNull(request);
  done();
}
