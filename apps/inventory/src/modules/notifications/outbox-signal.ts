/**
 * Wakes the outbox dispatchers of this process. Call it after the commit of a transaction that wrote
 * outbox messages (`ctx.afterCommit(announceOutboxMessages)`), never inside it: a dispatcher woken before
 * the commit would not see the message yet (PostgreSQL) or would wait for the commit (PGlite).
 * A wake-up is only a hint; each dispatcher also polls, so a lost one delays delivery, never loses it.
 */
const listeners = new Set<() => void>();

export function announceOutboxMessages(): void {
  for (const listener of listeners) listener();
}

/** Subscribes a dispatcher; the returned function unsubscribes it. */
export function onOutboxMessages(listener: () => void): () => void {
  listeners.add(listener);
  return () => listeners.delete(listener);
}
