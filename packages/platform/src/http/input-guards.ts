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
    const field = nulField(value, '');
    if (field !== undefined) {
      throw new AppError('VALIDATION_FAILED', `字段 ${field || part} 不能包含 NUL 字符 (U+0000)`, { field: field || part });
    }
  }
}

/** The dotted path of the first string (or key) holding a NUL, or undefined. */
function nulField(value: unknown, path: string, depth = 0): string | undefined {
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
