import { createHash } from 'node:crypto';
import type { FastifyBaseLogger, FastifyInstance, FastifyReply, FastifyRequest, RouteOptions } from 'fastify';
import type { Actor } from '../auth/actor.js';
import { can, canAny } from '../auth/actor.js';
import { SUPER_ADMIN_ONLY } from '../auth/permissions.js';
import { ActorCache, ActorChanged, confirmActorVersion, readActorVersion, type ActorCheck, type ActorSource } from '../auth/actor-source.js';
import { InvalidTokenError, type TokenService } from '../auth/jwt.js';
import type { Database } from '../db/database.js';
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
    /**
     * Codes that what the body names needs as well, every one of them (a shared route whose items may
     * come from several flows). Read from the parsed body before validation: it must expect anything.
     */
    bodyPermissions?: (body: unknown) => readonly string[];
    /** Guarded by the idempotency lock (spec 5.3–5.4). */
    idempotent?: boolean;
    /** Authenticated by X-API-Key against this setting instead of a token. */
    apiKey?: () => string | undefined;
    /**
     * The handler's first round trip reads the caller's account version itself (ctx.transaction, or a
     * statement of ctx.readWithActorVersion), so a cached actor costs the guard no query (hot paths).
     */
    actorConfirmedByHandler?: boolean;
  }
  interface FastifyRequest {
    actor: Actor;
    /** Set while the actor came from the cache and its version has not been read yet in this request. */
    actorConfirmation?: ActorConfirmation;
    idempotencyLock?: { key: string; token: string };
  }
}

/** What a use case needs to confirm a cached actor in its own first round trip. */
export interface ActorConfirmation {
  check: ActorCheck;
  /** The service's version SQL ($1 = user id). */
  versionQuery: string;
}

export interface GuardOptions {
  tokens: TokenService;
  /** Where callers are loaded from; the guard caches them by user id and account version. */
  actors: ActorSource;
  database: Database;
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
 * A cached actor's permission is checked as cached; on locked routes its account version is read right
 * after the lock is taken, and a change reloads it and checks the permission again (401 / 403 then).
 */
export function installRequestGuards(app: FastifyInstance, options: GuardOptions): void {
  app.decorateRequest('actor', undefined as unknown as Actor);
  app.decorateRequest('actorConfirmation', undefined);
  const actors = new ActorGate(options);
  // a login warms the cache, so the calls made with the new token find their actor without a database read
  options.tokens.onSigned((claims) => actors.warm(Number(claims.sub), app.log));

  app.addHook('onRoute', (route) => {
    if (route.config?.actorConfirmedByHandler) route.handler = rerunWhenActorChanged(route.handler, actors);
  });

  app.addHook('onRequest', async (request, reply) => {
    const config = request.routeOptions.config;
    if (config.apiKey) return checkApiKey(request, reply, config.apiKey(), options.throttle);
    if (config.public || !request.routeOptions.url) return;
    await actors.authenticate(request, await verifiedUserId(options.tokens, tokenOf(request)));
  });

  app.addHook('preValidation', async (request) => {
    if (!request.actor) return;
    // A cached actor is confirmed here, not by the handler, when it seems to lack the code (a grant given a
    // moment ago counts) or when an answer may come without the handler: a stored answer replayed for an
    // Idempotency-Key must not reach a user deactivated or stripped of the code since (contract §3).
    if (request.actorConfirmation && (!permitted(request) || request.headers['idempotency-key'] !== undefined)) await actors.confirm(request);
    assertPermitted(request);
  });

  app.addHook('preHandler', async (request) => {
    if (!request.routeOptions.config.idempotent) return;
    const key = idempotencyKey(request);
    const result = await options.locks.acquire(key, IDEMPOTENCY_TTL_MS);
    if (result === 'unavailable') request.log.warn({ key }, 'idempotency lock store unreachable; proceeding without the lock');
    else if (result !== 'held') request.idempotencyLock = { key, token: result.token };
    // Only now, the lock held (a twin arriving meanwhile meets it), is a cached actor confirmed: before the
    // refusal, which comes without the handler (401 / 403 win), and before a handler that does not confirm it.
    if (result === 'held' || !request.routeOptions.config.actorConfirmedByHandler) {
      await actors.confirm(request);
      assertPermitted(request);
    }
    if (result === 'held') throw new AppError('LOCK_HELD', '相同的请求正在处理中，请勿重复提交');
  });

  app.addHook('onResponse', async (request) => {
    const lock = request.idempotencyLock;
    if (lock) await options.locks.release(lock.key, lock.token);
  });
}

/**
 * Routes whose cached actor is confirmed only once the lock is held: the hot paths, whose handler reads the
 * account version in its own first round trip, and every locked route, whose guard reads it right after
 * the lock. Until then nothing of the request waits for the database, so an identical twin sent at the same
 * moment meets the lock even where one connection runs every query in turn (PGlite: a twin's version read
 * queued behind the first call's transaction reached the lock only after the first call had released it).
 */
function confirmedAfterLock(request: FastifyRequest): boolean {
  const config = request.routeOptions.config;
  return config.actorConfirmedByHandler === true || config.idempotent === true;
}

function tokenOf(request: FastifyRequest): string {
  const header = request.headers.authorization;
  const match = header ? /^Bearer\s+(\S+)$/i.exec(header) : null;
  if (!match?.[1]) throw unauthenticated('缺少登录凭证');
  return match[1];
}

/** The user id a valid token names; 401 for an invalid or expired token or a malformed subject. */
async function verifiedUserId(tokens: TokenService, token: string): Promise<number> {
  let sub: string;
  try {
    sub = (await tokens.verify(token)).sub;
  } catch (err) {
    throw unauthenticated(err instanceof InvalidTokenError ? err.message : undefined);
  }
  const userId = Number(sub);
  if (!Number.isInteger(userId) || userId <= 0 || userId > 2147483647) throw unauthenticated('用户不存在或已停用');
  return userId;
}

function requiredCodes(request: FastifyRequest): readonly string[] {
  const required = request.routeOptions.config.permission;
  if (!required) return [];
  return typeof required === 'string' ? [required] : required;
}

/** The codes the body needs that the caller lacks. */
function missingBodyCodes(request: FastifyRequest): string[] {
  const needed = request.routeOptions.config.bodyPermissions?.(request.body) ?? [];
  return needed.filter((code) => !can(request.actor, code));
}

/** The route's own code: one of `permission`, when it names any. */
function holdsRouteCode(request: FastifyRequest): boolean {
  const codes = requiredCodes(request);
  return codes.length === 0 || canAny(request.actor, codes);
}

function permitted(request: FastifyRequest): boolean {
  return holdsRouteCode(request) && missingBodyCodes(request).length === 0;
}

function assertPermitted(request: FastifyRequest): void {
  if (!holdsRouteCode(request)) {
    const codes = requiredCodes(request);
    throw forbidden(codes.includes(SUPER_ADMIN_ONLY) ? '仅超级管理员可以执行此操作' : `缺少权限: ${codes.join(' 或 ')}`);
  }
  const missing = missingBodyCodes(request);
  if (missing.length > 0) throw forbidden(`缺少权限: ${missing.join('、')}`);
}

/**
 * Who the caller is, on every request: the token names the user, the account decides. Actors are
 * cached by user id with the account version they were built at, and a cached actor is used only
 * after the version was read again in the same request: by the guard (one primary-key read), or, on
 * routes marked actorConfirmedByHandler, by the handler's own first round trip.
 */
class ActorGate {
  private readonly cache = new ActorCache();

  constructor(private readonly options: GuardOptions) {}

  async authenticate(request: FastifyRequest, userId: number): Promise<void> {
    const cached = this.cache.get(userId);
    if (cached && confirmedAfterLock(request)) {
      request.actor = cached.actor;
      request.actorConfirmation = { check: { userId, version: cached.version, confirmed: false }, versionQuery: this.options.actors.versionQuery };
      return;
    }
    if (cached && (await this.currentVersion(userId)) === cached.version) {
      request.actor = cached.actor;
      return;
    }
    await this.reload(request, userId);
  }

  /** Loads a user who just signed in into the cache, in the background; a failure only means a cold first call. */
  warm(userId: number, log: FastifyBaseLogger): void {
    if (!Number.isInteger(userId) || this.cache.get(userId)) return;
    this.options.actors
      .load(userId)
      .then((loaded) => {
        if (loaded && !this.cache.get(userId)) this.cache.set(userId, loaded);
      })
      .catch((err: unknown) => log.warn({ err, userId }, 'could not warm the actor cache after a login'));
  }

  /** Reads the version now; loads the actor again when it changed. */
  async confirm(request: FastifyRequest): Promise<void> {
    const pending = request.actorConfirmation;
    if (!pending) return;
    try {
      confirmActorVersion(pending.check, await this.currentVersion(pending.check.userId));
      request.actorConfirmation = undefined;
    } catch (err) {
      if (!(err instanceof ActorChanged)) throw err;
      await this.reload(request, pending.check.userId);
    }
  }

  async reload(request: FastifyRequest, userId: number): Promise<void> {
    request.actorConfirmation = undefined;
    const loaded = await this.options.actors.load(userId);
    if (!loaded) {
      this.cache.forget(userId);
      throw unauthenticated('用户不存在或已停用');
    }
    this.cache.set(userId, loaded);
    request.actor = loaded.actor;
  }

  private async currentVersion(userId: number): Promise<string | null> {
    const { database, actors } = this.options;
    return database.read((q) => readActorVersion(q, actors.versionQuery, userId));
  }
}

type Handler = RouteOptions['handler'];

/** A handler that found the cached actor out of date runs once more, with the actor loaded again and re-checked. */
function rerunWhenActorChanged(handler: Handler, actors: ActorGate): Handler {
  return async function (this: FastifyInstance, request, reply) {
    try {
      return await handler.call(this, request, reply);
    } catch (err) {
      if (!(err instanceof ActorChanged)) throw err;
      await actors.reload(request, request.actor.id);
      assertPermitted(request);
      return handler.call(this, request, reply);
    }
  };
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
