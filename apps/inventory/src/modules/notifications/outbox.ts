import { randomUUID } from 'node:crypto';
import type { Tx } from '@wms/platform';
import { notificationOutbox, type NotificationKind } from '../../db/schema/index.js';

/**
 * Writes one message for the production-tracking service into the outbox (contract §5). Call it inside
 * the transaction that changes the stock: the message exists exactly when the change does, and a
 * rolled-back change leaves no message. The event_id goes into the payload too, so the receiver can
 * recognise a redelivery. Delivery is the dispatcher's job, after commit.
 */
export async function enqueueNotification(tx: Tx, kind: NotificationKind, payload: Record<string, unknown>): Promise<string> {
  const eventId = randomUUID();
  await tx.insert(notificationOutbox).values({ eventId, kind, payload: { event_id: eventId, ...payload } });
  return eventId;
}
