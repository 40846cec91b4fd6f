import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '@wms/platform';
import type { NotificationKind, OutboxStatus } from '../../db/schema/index.js';
import { MAX_DELIVERY_ATTEMPTS, type DeliveryOutcome } from './delivery-policy.js';

/** A message taken for delivery. */
export interface ClaimedMessage {
  id: number;
  event_id: string;
  kind: NotificationKind;
  payload: Record<string, unknown>;
  /** Attempts made before this one. */
  attempts: number;
}

/**
 * Takes the oldest due pending message (id order) for one delivery attempt. The row is picked with
 * FOR UPDATE SKIP LOCKED and leased by moving next_attempt_at `leaseMs` ahead, in one statement that
 * commits at once: another dispatcher neither waits for it nor sees it as due while this one delivers
 * (the lease is longer than a delivery may take). If this process dies mid-delivery, the lease runs out
 * and the message is delivered again; the receiver's event_id makes that harmless.
 */
export async function claimNextDue(database: Database, leaseMs: number): Promise<ClaimedMessage | undefined> {
  const [message] = await database.transaction({ actor: 'system' }, (tx) =>
    queryRows<ClaimedMessage>(
      tx,
      sql`update notification_outbox set next_attempt_at = now() + ${leaseMs} * interval '1 millisecond'
           where id = (select id from notification_outbox
                        where status = 'pending' and next_attempt_at <= now()
                        order by id limit 1
                        for update skip locked)
       returning id::int as id, event_id::text as event_id, kind, payload, attempts`,
    ),
  );
  return message;
}

/**
 * Writes the result of one attempt. delivered: delivered_at; retry: last_error and the next attempt
 * `retryInMs` ahead, or failed once the attempts are used up; failed: at once.
 */
export async function recordOutcome(
  database: Database,
  message: ClaimedMessage,
  outcome: DeliveryOutcome,
  retryInMs: number,
): Promise<OutboxStatus> {
  const attempts = message.attempts + 1;
  const status: OutboxStatus =
    outcome.kind === 'delivered' ? 'delivered' : outcome.kind === 'failed' || attempts >= MAX_DELIVERY_ATTEMPTS ? 'failed' : 'pending';
  const change = {
    delivered: sql`delivered_at = now(), last_error = null`,
    failed: sql`last_error = ${outcome.kind === 'delivered' ? null : outcome.error}`,
    pending: sql`last_error = ${outcome.kind === 'delivered' ? null : outcome.error}, next_attempt_at = now() + ${retryInMs} * interval '1 millisecond'`,
  }[status];
  await database.transaction({ actor: 'system' }, (tx) =>
    tx.execute(
      sql`update notification_outbox set status = ${status}, attempts = ${attempts}, ${change} where id = ${message.id} and status = 'pending'`,
    ),
  );
  return status;
}

/** Gives a claimed message back untried (the dispatcher is stopping): due again at once, no attempt counted. */
export async function releaseClaim(database: Database, message: ClaimedMessage): Promise<void> {
  await database.transaction({ actor: 'system' }, (tx) =>
    tx.execute(sql`update notification_outbox set next_attempt_at = now() where id = ${message.id} and status = 'pending'`),
  );
}
