import { customType, index, integer, jsonb, pgTable, primaryKey, text, timestamp, uuid } from 'drizzle-orm/pg-core';

/** Raw bytes: the stored answer is replayed byte for byte, whatever its content type. */
const bytea = customType<{ data: Buffer; driverData: Buffer | Uint8Array }>({
  dataType: () => 'bytea',
  fromDriver: (value) => Buffer.from(value),
});

/**
 * One `Idempotency-Key` of one caller and the answer it got (decisions, Idempotency-Key). Each service
 * has its own table, so the service is implicit in the key's scope. A technical table: no audit trigger.
 *
 * Invariant: while the first call runs, `claim` holds its token and `status_code` is null; once it is
 * answered, `claim` is null and status, headers and body hold the stored answer.
 */
export const idempotencyKeys = pgTable(
  'idempotency_keys',
  {
    /** `user:<id>` or `api-key`. */
    caller: text('caller').notNull(),
    key: text('key').notNull(),
    /** SHA-256 of method, path, query and body (canonical JSON): a different request under the same key is refused. */
    fingerprint: text('fingerprint').notNull(),
    claim: uuid('claim'),
    /** A running claim older than this was left by a dead instance and may be taken over. */
    leaseUntil: timestamp('lease_until', { withTimezone: true }),
    statusCode: integer('status_code'),
    headers: jsonb('headers').$type<Record<string, string>>(),
    body: bytea('body'),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    /** The answer is replayed until then; afterwards the key is free again and the row is swept. */
    expiresAt: timestamp('expires_at', { withTimezone: true }).notNull(),
  },
  (t) => [primaryKey({ columns: [t.caller, t.key] }), index('idempotency_keys_expires_idx').on(t.expiresAt)],
);

export type IdempotencyKeyRow = typeof idempotencyKeys.$inferSelect;
