/**
 * A FIFO mutex. PGlite is a single connection: two transactions on it would share one session and
 * interleave their statements, so in PGlite mode every unit of database work runs under this lock.
 */
export class Mutex {
  private tail: Promise<void> = Promise.resolve();

  async runExclusive<T>(fn: () => Promise<T>): Promise<T> {
    const previous = this.tail;
    let release!: () => void;
    this.tail = new Promise<void>((resolve) => (release = resolve));
    await previous;
    try {
      return await fn();
    } finally {
      release();
    }
  }
}
