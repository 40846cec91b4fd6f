import { createHash } from 'node:crypto';
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Actor } from '../auth/actor.js';
import { canAny } from '../auth/actor.js';
import { InvalidTokenError, type TokenClaims, type TokenService } from '../auth/jwt.js';
import { AppError, forbidden, unauthenticated } from '../errors.js';
import type { LockStore } from '../idempotency/lock-store.js';
import type { CredentialThrottle } from './credential-throttle.js';

export const IDEMPOTENCY_TTL_MS = 5000;

declare module 'fastify' {
  interface FastifyContextConfig {
    /** No bearer token needed (health, login, docs, QR codes). */
    public?: boolean;
    /** The caller needs at least one of these codes. */
    permission?: string | readonly string[];
    /** Guarded by the idempotency lock (spec 5.3–5.4). */
    idempotent?: boolean;
    /** Authenticated by X-API-Key against this setting instead of a token. */
    apiKey?: () => string | undefined;
  }
  interface FastifyRequest {
    actor: Actor;
    idempotencyLock?: { key: string; token: string };
  }
}

export interface GuardOptions {
  tokens: TokenService;
  /** Loads the caller from the token's claims; null when the user is gone or inactive. */
  loadActor: (claims: TokenClaims) => Promise<Actor | null>;
  locks: LockStore;
  /** Counts wrong X-API-Keys per client address. */
  throttle: CredentialThrottle;
}

/**
 * Every request passes the same gates, in this order (spec 5.3: permission check before the lock,
 * since the reverse would fail open):
 *   onRequest     token or API key  → 401 / 429 / 503
 *   preValidation permission        → 403
 *   preHandler    idempotency lock  → 409
 */
export function installRequestGuards(app: FastifyInstance, options: GuardOptions): void {
  app.decorateRequest('actor', undefined as unknown as Actor);

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.apiKey) return checkApiKey(request, reply, config.apiKey(), options.throttle);
    if (config.public || !request.routeOptions.url) return;
    request.actor = await authenticate(request, options);
  });

  app.addHook('preValidation', async (request) => {
    const required = request.routeOptions.config.permission;
    if (!required || !request.actor) return;
    const codes = typeof required === 'string' ? [required] : required;
    if (!canAny(request.actor, codes)) throw forbidden(`缺少权限: ${codes.join(' 或 ')}`);
  });

  app.addHook('preHandler', async (request) => {
    if (!request.routeOptions.config.idempotent) return;
    const key = idempotencyKey(request);
    const result = await options.locks.acquire(key, IDEMPOTENCY_TTL_MS);
    if (result === 'held') throw new AppError('LOCK_HELD', '相同的请求正在处理中，请勿重复提交');
    if (result === 'unavailable') {
      request.log.warn({ key }, 'idempotency lock store unreachable; proceeding without the lock');
      return;
    }
    request.idempotencyLock = { key, token: result.token };
  });

  app.addHook('onResponse', async (request) => {
    const lock = request.idempotencyLock;
    if (lock) await options.locks.release(lock.key, lock.token);
  });
}

async function authenticate(request: FastifyRequest, options: GuardOptions): Promise<Actor> {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match?.[1]) throw unauthenticated('缺少登录凭证');
  let claims: TokenClaims;
  try {
    claims = await options.tokens.verify(match[1]);
  } catch (err) {
    throw unauthenticated(err instanceof InvalidTokenError ? err.message : undefined);
  }
  const actor = await options.loadActor(claims);
  if (!actor) throw unauthenticated('用户不存在或已停用');
  return actor;
}

/** An address past the limit of wrong keys gets 429 before its key is compared; a correct key counts nothing. */
async function checkApiKey(request: FastifyRequest, reply: FastifyReply, configured: string | undefined, throttle: CredentialThrottle): Promise<void> {
  if (!configured) throw new AppError('KEY_NOT_CONFIGURED', '接口密钥未配置，服务暂不可用');
  await throttle.checkApiKeyAddress(request, reply);
  const sent = request.headers['x-api-key'];
  if (typeof sent === 'string' && safeEqual(sent, configured)) return;
  await throttle.apiKeyFailed(request);
  throw unauthenticated('X-API-Key 缺失或错误');
}

function safeEqual(a: string, b: string): boolean {
  const left = createHash('sha256').update(a).digest();
  const right = createHash('sha256').update(b).digest();
  return left.equals(right);
}

/** user id + path + a digest of the body: the same call repeated by the same user collides. */
export function idempotencyKeyFor(userId: number | string, method: string, url: string, body: unknown): string {
  const digest = createHash('sha256').update(JSON.stringify(body ?? null)).digest('hex');
  return `${userId}:${method}:${url.split('?')[0]}:${digest}`;
}

function idempotencyKey(request: FastifyRequest): string {
  return idempotencyKeyFor(request.actor?.id ?? 'anonymous', request.method, request.url, request.body);
}
