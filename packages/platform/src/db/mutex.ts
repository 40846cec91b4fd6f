import { AsyncLocalStorage } from 'node:async_hooks';

/**
 * A FIFO mutex. PGlite is a single connection: two transactions on it would share one session and
 * interleave their statements, so in PGlite mode every unit of database work runs under this lock.
 * It is re-entrant within one async call chain: a read issued from inside a running transaction
 * runs at once (on the one connection, so inside that transaction) instead of waiting on itself.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();
  /** Marks the async chain that holds the lock; `held` turns false on release, so work that was
   * merely started from inside (a timer, a background task) does not inherit the lock. */
  private readonly holder = new AsyncLocalStorage<{ held: boolean }>();

  /** Whether the calling async chain holds the lock (work inside a running transaction). */
  get held(): boolean {
    return this.holder.getStore()?.held === true;
  }

  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    if (this.holder.getStore()?.held) return fn();
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    const hold = { held: true };
    try {
      return await this.holder.run(hold, fn);
    } finally {
      hold.held = false;
      release();
    }
  }
}
