import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Database } from '../db/database.js';
import { AppError } from '../errors.js';
import { ReplayStore, type Claim, type KeyId, type StoredAnswer } from '../idempotency/replay-store.js';

/**
 * Safe retries (decisions, Idempotency-Key): a mutating call sent with `Idempotency-Key` runs once per
 * caller and key; a repeat with the same request gets the stored first answer for 24 hours, a different
 * request under the same key is refused, and a repeat while the first still runs waits for its answer.
 * Independent of the 5-second idempotency lock, which still guards every call (with or without the header).
 */
export const IDEMPOTENCY_KEY_HEADER = 'idempotency-key';
export const IDEMPOTENCY_REPLAYED_HEADER = 'idempotency-replayed';
export const IDEMPOTENCY_REPLAY_MS = 24 * 60 * 60 * 1000;
export const IDEMPOTENCY_LEASE_MS = 60_000;
/** A repeat arriving while the first call runs waits this long for its answer, then gets 409. */
export const IDEMPOTENCY_WAIT_MS = 5000;
const SWEEP_EVERY_MS = 10 * 60 * 1000;
const POLL_FIRST_MS = 50;
const POLL_MAX_MS = 400;

/** One line for the OpenAPI description of each service. */
export const IDEMPOTENCY_KEY_NOTE =
  '所有 POST/PUT/PATCH/DELETE 接口（文件上传除外）接受请求头 Idempotency-Key（1–255 个可打印 ASCII 字符）：同一调用者以相同的键和相同的请求重试时，' +
  '24 小时内原样返回首次的状态码与响应体（响应头 Idempotency-Replayed: true）而不再执行；相同的键用于不同的请求为 422 IDEMPOTENCY_KEY_REUSED；' +
  '首次请求仍在处理时，重试最多等待 5 秒，否则为 409 IDEMPOTENCY_IN_PROGRESS。';

const MUTATING_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);
const KEY_SYNTAX = /^[\x20-\x7e]{1,255}$/;
/** Answers that say "not done, try again" (or depend on who asks) free the key instead of being stored. */
const RETRYABLE_STATUSES = new Set([401, 403, 408, 409, 429]);
/** The headers a replay repeats; everything else is the framework's own. */
const STORED_HEADERS = ['content-type', 'content-disposition'];

declare module 'fastify' {
  interface FastifyRequest {
    /** Set while this request is the first call under its Idempotency-Key. */
    idempotencyClaim?: Claim;
  }
}

export interface IdempotencyReplayOptions {
  database: Database;
}

/**
 * Installs the replay gate as a preHandler. Installed before the request guards, so it runs after the
 * token (onRequest), the permission (preValidation) and the schema validation, and before the 5-second
 * lock: a 401, 403 or invalid body never touches a key, and a waiting repeat is not refused by the lock.
 */
export function installIdempotencyReplay(app: FastifyInstance, options: IdempotencyReplayOptions): void {
  const store = new ReplayStore(options.database, { replayMs: IDEMPOTENCY_REPLAY_MS, leaseMs: IDEMPOTENCY_LEASE_MS });

  app.addHook('preHandler', async (request, reply) => {
    const id = keyIdOf(request);
    if (!id) return;
    const outcome = await settle(store, id, requestFingerprint(request));
    switch (outcome.kind) {
      case 'claimed':
        request.idempotencyClaim = outcome.claim;
        return;
      case 'replay':
        return replay(reply, outcome.answer);
      case 'reused':
        throw new AppError('IDEMPOTENCY_KEY_REUSED', '该 Idempotency-Key 已用于另一个请求，新的请求请使用新的键', { field: 'Idempotency-Key' });
      case 'running':
        reply.header('retry-after', '1');
        throw new AppError('IDEMPOTENCY_IN_PROGRESS', '使用相同 Idempotency-Key 的请求仍在处理中，请稍后重试');
    }
  });

  // stored before the answer leaves: whoever received it can rely on the replay
  app.addHook('onSend', async (request, reply, payload) => {
    const claim = request.idempotencyClaim;
    if (!claim) return payload;
    request.idempotencyClaim = undefined;
    await settleClaim(store, claim, answerOf(reply, payload), request);
    return payload;
  });

  // a reply that never passed onSend (connection gone) frees its key; the lease would otherwise
  app.addHook('onResponse', async (request) => {
    const claim = request.idempotencyClaim;
    if (!claim) return;
    request.idempotencyClaim = undefined;
    await settleClaim(store, claim, undefined, request);
  });

  installSweep(app, store);
}

/**
 * The caller's key, or undefined when the header does not apply: not mutating, no header, a public route,
 * or a file upload (its form is read by the handler, so no fingerprint of it exists beforehand).
 */
function keyIdOf(request: FastifyRequest): KeyId | undefined {
  if (!MUTATING_METHODS.has(request.method)) return undefined;
  const sent = request.headers[IDEMPOTENCY_KEY_HEADER];
  if (sent === undefined || isUpload(request)) return undefined;
  const caller = callerOf(request);
  if (!caller) return undefined;
  if (typeof sent !== 'string' || !KEY_SYNTAX.test(sent)) {
    throw new AppError('VALIDATION_FAILED', '请求头 Idempotency-Key 不合法: 应为 1–255 个可打印 ASCII 字符', { field: 'Idempotency-Key' });
  }
  return { caller, key: sent };
}

const isUpload = (request: FastifyRequest) => /^multipart\//i.test(request.headers['content-type'] ?? '');

/** Public routes (login, health) have no caller to scope a key to: the header is ignored there. */
function callerOf(request: FastifyRequest): string | undefined {
  if (request.routeOptions.config.apiKey) return 'api-key';
  return request.actor ? `user:${request.actor.id}` : undefined;
}

/** SHA-256 of method, path, query and body, the last two as canonical JSON (sorted keys), as validated. */
export function requestFingerprint(request: Pick<FastifyRequest, 'method' | 'url' | 'query' | 'body'>): string {
  const path = request.url.split('?')[0];
  return createHash('sha256')
    .update([request.method, path, canonicalJson(request.query ?? {}), canonicalJson(request.body ?? null)].join('\n'))
    .digest('hex');
}

export function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(',')}]`;
  if (value !== null && typeof value === 'object') {
    const record = value as Record<string, unknown>;
    const fields = Object.keys(record)
      .filter((name) => record[name] !== undefined)
      .sort()
      .map((name) => `${JSON.stringify(name)}:${canonicalJson(record[name])}`);
    return `{${fields.join(',')}}`;
  }
  return JSON.stringify(value ?? null);
}

type Outcome = { kind: 'claimed'; claim: Claim } | { kind: 'replay'; answer: StoredAnswer } | { kind: 'reused' } | { kind: 'running' };

/** Claims the key, or finds what it holds; a running first call of the same request is awaited. */
async function settle(store: ReplayStore, id: KeyId, fingerprint: string): Promise<Outcome> {
  const deadline = Date.now() + IDEMPOTENCY_WAIT_MS;
  for (let attempt = 0; ; attempt++) {
    const claim = await store.claim(id, fingerprint);
    if (claim) return { kind: 'claimed', claim };
    const current = await store.stateOf(id);
    if (current.state !== 'free' && current.fingerprint !== fingerprint) return { kind: 'reused' };
    if (current.state === 'answered') return { kind: 'replay', answer: current.answer };
    if (Date.now() >= deadline) return { kind: 'running' };
    // running, or freed between the two statements (released, expired): look again
    if (current.state === 'running') await sleep(Math.min(POLL_MAX_MS, POLL_FIRST_MS * 2 ** attempt));
  }
}

function replay(reply: FastifyReply, answer: StoredAnswer): FastifyReply {
  void reply.code(answer.statusCode).headers(answer.headers).header(IDEMPOTENCY_REPLAYED_HEADER, 'true');
  return answer.body.length > 0 ? reply.send(answer.body) : reply.send();
}

/** The answer to keep, or undefined when the key should be freed for a retry. */
function answerOf(reply: FastifyReply, payload: unknown): StoredAnswer | undefined {
  const body = bytesOf(payload);
  if (!body) return undefined; // a stream cannot be replayed
  const statusCode = reply.statusCode;
  if (statusCode >= 500 || RETRYABLE_STATUSES.has(statusCode)) return undefined;
  if (statusCode >= 400 && errorCodeOf(body) === 'VALIDATION_FAILED') return undefined;
  const headers: Record<string, string> = {};
  for (const name of STORED_HEADERS) {
    const value = reply.getHeader(name);
    if (value !== undefined) headers[name] = String(value);
  }
  return { statusCode, headers, body };
}

function bytesOf(payload: unknown): Buffer | undefined {
  if (payload === null || payload === undefined) return Buffer.alloc(0);
  if (typeof payload === 'string') return Buffer.from(payload, 'utf8');
  if (Buffer.isBuffer(payload)) return payload;
  return undefined;
}

function errorCodeOf(body: Buffer): unknown {
  try {
    return (JSON.parse(body.toString('utf8')) as { code?: unknown }).code;
  } catch {
    return undefined;
  }
}

/** Stores the answer or frees the key; a failure here must not lose the answer itself, so it is only logged. */
async function settleClaim(store: ReplayStore, claim: Claim, answer: StoredAnswer | undefined, request: FastifyRequest): Promise<void> {
  try {
    if (!answer) return await store.release(claim);
    if (!(await store.complete(claim, answer))) {
      request.log.warn({ key: claim.key }, 'idempotency key was taken over before its answer was stored');
    }
  } catch (err) {
    request.log.warn({ err, key: claim.key }, 'idempotency key could not be settled; its lease frees it');
  }
}

/** Expired keys are deleted at start and every 10 minutes, so the table holds about one day of keys. */
function installSweep(app: FastifyInstance, store: ReplayStore): void {
  let timer: NodeJS.Timeout | undefined;
  let running: Promise<void> = Promise.resolve();
  const sweep = () => {
    running = running.then(() => store.purgeExpired()).catch((err: unknown) => app.log.warn({ err }, 'idempotency key sweep failed'));
  };
  app.addHook('onReady', async () => {
    sweep();
    timer = setInterval(sweep, SWEEP_EVERY_MS);
    timer.unref();
  });
  app.addHook('onClose', async () => {
    clearInterval(timer);
    await running;
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
