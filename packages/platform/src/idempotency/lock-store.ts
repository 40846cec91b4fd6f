import { randomUUID } from 'node:crypto';
import { Redis } from 'ioredis';

/**
 * The idempotency lock store (spec 5.3–5.4). `acquire` answers:
 *  - a token: the lock is ours until released or the TTL passes;
 *  - 'held': someone holds it (the caller answers 409);
 *  - 'unavailable': the store cannot be reached, and the call proceeds (fail-open).
 */
export type AcquireResult = { token: string } | 'held' | 'unavailable';

export interface LockStore {
  acquire(key: string, ttlMs: number): Promise<AcquireResult>;
  release(key: string, token: string): Promise<void>;
  close(): Promise<void>;
}

export class MemoryLockStore implements LockStore {
  private readonly locks = new Map<string, { token: string; expiresAt: number }>();

  async acquire(key: string, ttlMs: number): Promise<AcquireResult> {
    const now = Date.now();
    const current = this.locks.get(key);
    if (current && current.expiresAt > now) return 'held';
    const token = randomUUID();
    this.locks.set(key, { token, expiresAt: now + ttlMs });
    return { token };
  }

  async release(key: string, token: string): Promise<void> {
    if (this.locks.get(key)?.token === token) this.locks.delete(key);
  }

  async close(): Promise<void> {
    this.locks.clear();
  }
}

/** Deletes the key only when it still holds our token, so an expired lock taken over is left alone. */
const RELEASE_SCRIPT = `if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end`;
const STORE_TIMEOUT_MS = 500;

function withTimeout<T>(promise: Promise<T>): Promise<T> {
  return Promise.race([
    promise,
    new Promise<T>((_, reject) => setTimeout(() => reject(new Error('lock store timeout')), STORE_TIMEOUT_MS).unref()),
  ]);
}

export class RedisLockStore implements LockStore {
  private readonly redis: Redis;

  constructor(url: string, private readonly prefix = 'idem:') {
    this.redis = new Redis(url, {
      lazyConnect: false,
      enableOfflineQueue: false,
      maxRetriesPerRequest: 0,
      connectTimeout: 1000,
      retryStrategy: (times) => Math.min(times * 200, 2000),
    });
    this.redis.on('error', () => undefined); // an unreachable store is reported by acquire as 'unavailable'
  }

  async acquire(key: string, ttlMs: number): Promise<AcquireResult> {
    const token = randomUUID();
    try {
      const answer = await withTimeout(this.redis.set(this.prefix + key, token, 'PX', ttlMs, 'NX'));
      return answer === 'OK' ? { token } : 'held';
    } catch {
      return 'unavailable';
    }
  }

  async release(key: string, token: string): Promise<void> {
    try {
      await withTimeout(this.redis.eval(RELEASE_SCRIPT, 1, this.prefix + key, token));
    } catch {
      // the TTL frees the lock when the store is back
    }
  }

  async close(): Promise<void> {
    this.redis.disconnect();
  }
}

export function createLockStore(redisUrl: string | undefined): LockStore {
  return redisUrl ? new RedisLockStore(redisUrl) : new MemoryLockStore();
}
