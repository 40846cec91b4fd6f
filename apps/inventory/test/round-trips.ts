import pg from 'pg';
import { expect } from 'vitest';

/** A round trip that ends its transaction: a COMMIT of its own, or one sent at the end of a batch. */
const commits = (text: string) => /(^|;)\s*commit\s*;?\s*$/i.test(text);

/**
 * Every query node-postgres sends while `call` runs (BEGIN, COMMIT and SAVEPOINT included), one entry
 * per round trip, up to the first that COMMITs: the call's own transaction. What runs after the commit
 * (the low-stock check, the outbox announcement) is another transaction and may still be under way when
 * the answer is out. Only the PostgreSQL driver is watched: callers skip on PGlite.
 */
export async function roundTripsOf(call: () => Promise<unknown>): Promise<string[]> {
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  const original = client.query;
  const sent: string[] = [];
  client.query = function (this: unknown, ...args: unknown[]) {
    const [query] = args;
    sent.push(typeof query === 'string' ? query : String((query as { text?: string }).text ?? query));
    return original.apply(this, args);
  };
  try {
    await call();
  } finally {
    client.query = original;
  }
  const commit = sent.findIndex(commits);
  expect(commit).toBeGreaterThan(0);
  return sent.slice(0, commit + 1);
}
