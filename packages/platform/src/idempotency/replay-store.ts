import { randomUUID } from 'node:crypto';
import { and, eq, lte, sql } from 'drizzle-orm';
import type { Database, Queryable } from '../db/database.js';
import { idempotencyKeys } from '../db/idempotency-table.js';

/** One caller's key (the table's primary key). */
export interface KeyId {
  caller: string;
  key: string;
}

/** A running first call: only the holder of `token` may store or release the answer. */
export interface Claim extends KeyId {
  token: string;
}

export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
}

/** What a key holds when it could not be claimed. */
export type KeyState =
  | { state: 'answered'; fingerprint: string; answer: StoredAnswer }
  | { state: 'running'; fingerprint: string }
  | { state: 'free' };

export interface ReplayTimings {
  /** How long a stored answer is replayed (24 h). */
  replayMs: number;
  /** How long a running claim is trusted before another instance may take it over. */
  leaseMs: number;
}

const millis = (ms: number) => sql`${ms} * interval '1 millisecond'`;

/**
 * The `idempotency_keys` table. Every time comparison uses the database's clock, so instances with
 * skewed clocks agree. Each call is one autocommit statement; `database.read` is the way to run one
 * outside a transaction (serialised with the transactions on PGlite).
 */
export class ReplayStore {
  constructor(
    private readonly database: Database,
    private readonly timings: ReplayTimings,
  ) {}

  /**
   * Claims the key for a new first call, atomically: a new key, an expired one, or a running claim of the
   * same request whose lease ran out (its instance died) is taken; anything else is left as it is.
   */
  async claim(id: KeyId, fingerprint: string): Promise<Claim | undefined> {
    const token = randomUUID();
    const fresh = {
      fingerprint,
      claim: token,
      leaseUntil: sql`now() + ${millis(this.timings.leaseMs)}`,
      expiresAt: sql`now() + ${millis(this.timings.replayMs)}`,
    };
    const rows = await this.run((q) =>
      q
        .insert(idempotencyKeys)
        .values({ ...id, ...fresh })
        .onConflictDoUpdate({
          target: [idempotencyKeys.caller, idempotencyKeys.key],
          set: { ...fresh, statusCode: null, headers: null, body: null, createdAt: sql`now()` },
          setWhere: sql`${idempotencyKeys.expiresAt} <= now()
            or (${idempotencyKeys.statusCode} is null and ${idempotencyKeys.leaseUntil} <= now()
                and ${idempotencyKeys.fingerprint} = excluded.fingerprint)`,
        })
        .returning({ claim: idempotencyKeys.claim }),
    );
    return rows[0]?.claim === token ? { ...id, token } : undefined;
  }

  /** The key's live record; an expired one counts as free (the next claim takes it over). */
  async stateOf(id: KeyId): Promise<KeyState> {
    const [row] = await this.run((q) =>
      q
        .select()
        .from(idempotencyKeys)
        .where(and(eq(idempotencyKeys.caller, id.caller), eq(idempotencyKeys.key, id.key), sql`${idempotencyKeys.expiresAt} > now()`)),
    );
    if (!row) return { state: 'free' };
    if (row.statusCode === null) return { state: 'running', fingerprint: row.fingerprint };
    return {
      state: 'answered',
      fingerprint: row.fingerprint,
      answer: { statusCode: row.statusCode, headers: row.headers ?? {}, body: row.body ?? Buffer.alloc(0) },
    };
  }

  /** Stores the answer of our claim; false when the claim was taken over meanwhile (lease ran out). */
  async complete(claim: Claim, answer: StoredAnswer): Promise<boolean> {
    const rows = await this.run((q) =>
      q
        .update(idempotencyKeys)
        .set({ ...answer, claim: null, leaseUntil: null })
        .where(this.ownedBy(claim))
        .returning({ key: idempotencyKeys.key }),
    );
    return rows.length > 0;
  }

  /** Frees the key, so a retry under it runs the call again. */
  async release(claim: Claim): Promise<void> {
    await this.run((q) => q.delete(idempotencyKeys).where(this.ownedBy(claim)));
  }

  /** Deletes every expired record (the sweep keeps the table at about one day of keys). */
  async purgeExpired(): Promise<void> {
    await this.run((q) => q.delete(idempotencyKeys).where(lte(idempotencyKeys.expiresAt, sql`now()`)));
  }

  private ownedBy(claim: Claim) {
    return and(eq(idempotencyKeys.caller, claim.caller), eq(idempotencyKeys.key, claim.key), eq(idempotencyKeys.claim, claim.token));
  }

  private run<T>(fn: (q: Queryable) => Promise<T>): Promise<T> {
    return this.database.read(fn);
  }
}
