import { eq } from 'drizzle-orm';
import type { Queryable, Tx } from '@wms/platform';
import { integrationEvents, type IntegrationEventRow, type InventoryNoticeKind } from '../../db/schema/index.js';

/** Thrown inside a receiver transaction when a concurrent delivery of the same event_id committed first. */
export class RedeliveredEvent extends Error {
  constructor(readonly eventId: string) {
    super(`event ${eventId} was processed concurrently`);
    this.name = 'RedeliveredEvent';
  }
}

export async function findProcessedEvent(q: Queryable, eventId: string): Promise<IntegrationEventRow | undefined> {
  const [row] = await q.select().from(integrationEvents).where(eq(integrationEvents.eventId, eventId));
  return row;
}

export interface ProcessedEvent {
  eventId: string;
  kind: InventoryNoticeKind;
  reference: string;
  operator: string | null;
  matched: boolean;
  receivedAt: Date;
}

/**
 * Records the message as processed, last thing in the transaction that applied it. When another delivery
 * of the same event_id got there first (PostgreSQL: it waits for that one to commit), this one throws
 * RedeliveredEvent so that everything it did is rolled back.
 */
export async function recordProcessedEvent(tx: Tx, event: ProcessedEvent): Promise<void> {
  const inserted = await tx
    .insert(integrationEvents)
    .values(event)
    .onConflictDoNothing({ target: integrationEvents.eventId })
    .returning({ eventId: integrationEvents.eventId });
  if (inserted.length === 0) throw new RedeliveredEvent(event.eventId);
}
