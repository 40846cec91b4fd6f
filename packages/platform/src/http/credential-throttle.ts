import type { FastifyReply, FastifyRequest } from 'fastify';
import { Redis } from 'ioredis';
import { RateLimiterMemory, RateLimiterRedis, RateLimiterRes, RLWrapperTimeouts, type RateLimiterAbstract } from 'rate-limiter-flexible';
import { Type } from 'typebox';
import { AppError } from '../errors.js';
import { ErrorBody } from './schemas.js';

/**
 * Credential throttling (docs/decisions.md "Credential throttling"): failed logins are counted per
 * username and per client address, wrong X-API-Keys per client address, each in a fixed window. Past a
 * limit the next attempt is refused with 429 and Retry-After before the credential is looked at.
 * The counters live in Redis when REDIS_URL is set (every instance sees the same count), in this process
 * otherwise; a store that cannot be reached is skipped with a warning, so it never locks anybody out.
 * The client address is `request.ip`: behind a reverse proxy Fastify's `trustProxy` must be set, or every
 * caller shares the proxy's address. A loopback address is not counted per address: on the same host it
 * names no one (the other service's notifications, local tools and checks all come from it); its
 * usernames still are.
 */
export interface CredentialLimits {
  /** Failed logins of one username (trimmed, lower-cased) per window. */
  loginFailuresPerUser: number;
  /** Failed logins from one address per window, whatever the username (an office NAT is one address). */
  loginFailuresPerAddress: number;
  /** Missing or wrong X-API-Keys from one address per window. */
  apiKeyFailuresPerAddress: number;
  windowSeconds: number;
}

export const DEFAULT_CREDENTIAL_LIMITS: CredentialLimits = {
  loginFailuresPerUser: 10,
  loginFailuresPerAddress: 20,
  apiKeyFailuresPerAddress: 10,
  windowSeconds: 900,
};

/** The 429 answer, for the OpenAPI responses of the throttled routes. */
export const tooManyAttemptsResponse = {
  429: Type.Object(ErrorBody.properties, {
    additionalProperties: true,
    description: '失败次数过多 (TOO_MANY_ATTEMPTS)：等待 Retry-After 秒之前，正确的凭证也被拒绝',
    headers: { 'Retry-After': { type: 'integer', description: '需等待的秒数' } },
  }),
} as const;

export interface CredentialThrottleOptions {
  /** Counters in Redis when set, in this process otherwise. */
  redisUrl?: string;
  /** Missing limits take DEFAULT_CREDENTIAL_LIMITS. */
  limits?: Partial<CredentialLimits>;
  /** Keeps the counters of different services (and departments) apart in one Redis. */
  namespace: string;
}

const STORE_TIMEOUT_MS = 500;

export class CredentialThrottle {
  private readonly redis?: Redis;
  private readonly loginUser: FailureCounter;
  private readonly loginAddress: FailureCounter;
  private readonly apiKeyAddress: FailureCounter;

  constructor(options: CredentialThrottleOptions) {
    const limits = { ...DEFAULT_CREDENTIAL_LIMITS, ...options.limits };
    // the lock store's connection style: no offline queue, so an unreachable Redis answers at once
    this.redis = options.redisUrl
      ? new Redis(options.redisUrl, { enableOfflineQueue: false, maxRetriesPerRequest: 0, connectTimeout: 1000, retryStrategy: (times) => Math.min(times * 200, 2000) })
      : undefined;
    this.redis?.on('error', () => undefined); // each failed call is warned about where it happens
    const counter = (name: string, points: number) =>
      new FailureCounter(this.limiter(`throttle:${options.namespace}:${name}`, points, limits.windowSeconds), points);
    this.loginUser = counter('login-user', limits.loginFailuresPerUser);
    this.loginAddress = counter('login-ip', limits.loginFailuresPerAddress);
    this.apiKeyAddress = counter('api-key-ip', limits.apiKeyFailuresPerAddress);
  }

  private limiter(keyPrefix: string, points: number, duration: number): RateLimiterAbstract {
    if (!this.redis) return new RateLimiterMemory({ keyPrefix, points, duration });
    const store = new RateLimiterRedis({ storeClient: this.redis, keyPrefix, points, duration, rejectIfRedisNotReady: true });
    return new RLWrapperTimeouts({ limiter: store, timeoutMs: STORE_TIMEOUT_MS });
  }

  /**
   * Runs one login attempt. The attempt takes a point from the address's and the username's counters
   * before the password is checked, so parallel guesses cannot all slip past a check made while the others
   * are still verifying; when that passes a limit the answer is 429, whatever the password (a refused
   * attempt keeps no point on the other counter). Then a refusal (401) keeps both points, a success clears
   * the username's counter and gives the address its point back, and any other outcome gives both back.
   */
  async login<T>(request: FastifyRequest, reply: FastifyReply, username: string, attempt: () => Promise<T>): Promise<T> {
    const user = username.trim().toLowerCase();
    const address = countedAddress(request);
    // the address first: a blocked address (say, one spraying usernames) adds no username counters
    const addressWait = await this.loginAddress.take(request, address);
    if (addressWait > 0) throw tooManyAttempts(reply, addressWait, '登录失败次数过多');
    const userWait = await this.loginUser.take(request, user);
    if (userWait > 0) {
      await this.loginAddress.giveBack(request, address);
      throw tooManyAttempts(reply, userWait, '登录失败次数过多');
    }
    let result: T;
    try {
      result = await attempt();
    } catch (err) {
      if (!(err instanceof AppError && err.code === 'UNAUTHENTICATED')) {
        await Promise.all([this.loginUser.giveBack(request, user), this.loginAddress.giveBack(request, address)]);
      }
      throw err;
    }
    await Promise.all([this.loginUser.forget(request, user), this.loginAddress.giveBack(request, address)]);
    return result;
  }

  /**
   * Refuses with 429 while the address is over the limit for wrong keys, before the key is compared.
   * Only wrong keys count (`apiKeyFailed`), so a correct key is never refused by a burst of correct keys
   * (the notification sender posts in bursts); keys are long random secrets, not guessable in a burst.
   */
  async checkApiKeyAddress(request: FastifyRequest, reply: FastifyReply): Promise<void> {
    const wait = await this.apiKeyAddress.waitOf(request, countedAddress(request));
    if (wait > 0) throw tooManyAttempts(reply, wait, 'X-API-Key 错误次数过多');
  }

  async apiKeyFailed(request: FastifyRequest): Promise<void> {
    await this.apiKeyAddress.take(request, countedAddress(request));
  }

  async close(): Promise<void> {
    this.redis?.disconnect();
  }
}

export function createCredentialThrottle(options: CredentialThrottleOptions): CredentialThrottle {
  return new CredentialThrottle(options);
}

/** The client address to count failures against; none for loopback (127.0.0.0/8, ::1, and their IPv4-mapped form). */
function countedAddress(request: FastifyRequest): string | undefined {
  const ip = request.ip;
  return /^(127\.|::1$|::ffff:127\.)/.test(ip) ? undefined : ip;
}

function tooManyAttempts(reply: FastifyReply, waitMs: number, what: string): AppError {
  const seconds = Math.max(1, Math.ceil(waitMs / 1000));
  // the error handler keeps headers set before the throw
  void reply.header('Retry-After', String(seconds));
  return new AppError('TOO_MANY_ATTEMPTS', `${what}，请 ${seconds} 秒后再试`);
}

/**
 * One rate-limiter-flexible counter of failures in a fixed window. Waits are in milliseconds, 0 = go on.
 * A store error fails open: it is logged and the attempt goes on uncounted.
 */
/** Failures of one kind per key; an undefined key is not counted (never waits, never takes). */
class FailureCounter {
  constructor(
    private readonly limiter: RateLimiterAbstract,
    private readonly points: number,
  ) {}

  /** Counts one failure (or reserves one); the wait when this one is past the limit. */
  async take(request: FastifyRequest, key: string | undefined): Promise<number> {
    if (key === undefined) return 0;
    try {
      await this.limiter.consume(key);
      return 0;
    } catch (err) {
      if (err instanceof RateLimiterRes) return err.msBeforeNext;
      warnUnavailable(request, err);
      return 0;
    }
  }

  /** The wait while the limit is used up, without counting anything. */
  async waitOf(request: FastifyRequest, key: string | undefined): Promise<number> {
    if (key === undefined) return 0;
    try {
      const current = await this.limiter.get(key);
      return current && current.consumedPoints >= this.points ? current.msBeforeNext : 0;
    } catch (err) {
      warnUnavailable(request, err);
      return 0;
    }
  }

  async giveBack(request: FastifyRequest, key: string | undefined): Promise<void> {
    if (key !== undefined) await this.settle(request, () => this.limiter.reward(key, 1));
  }

  async forget(request: FastifyRequest, key: string): Promise<void> {
    await this.settle(request, () => this.limiter.delete(key));
  }

  private async settle(request: FastifyRequest, operation: () => Promise<unknown>): Promise<void> {
    try {
      await operation();
    } catch (err) {
      warnUnavailable(request, err);
    }
  }
}

function warnUnavailable(request: FastifyRequest, err: unknown): void {
  request.log.warn({ err }, 'credential throttle store unreachable; attempt not counted');
}
