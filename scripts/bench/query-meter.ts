import pg from 'pg';

/**
 * Counts what the server process asks of PostgreSQL, seen from node-postgres: round trips
 * (Client#query calls, BEGIN/COMMIT/SAVEPOINT included), the time from sending a query to its answer,
 * and the time spent waiting for a pooled connection. Installed once, before the app opens its pool.
 */
export interface QueryTotals {
  queries: number;
  queryMs: number;
  poolWaits: number;
  poolWaitMs: number;
}

const totals: QueryTotals = { queries: 0, queryMs: 0, poolWaits: 0, poolWaitMs: 0 };
let installed = false;
const unmeteredClients = new WeakSet<object>();

/** The bench's own observers (activity sampler, seeding) are not part of what is measured. */
export function unmetered<T extends object>(client: T): T {
  unmeteredClients.add(client);
  return client;
}

type Callback = (...args: unknown[]) => void;

/** Wraps a callback-or-promise API so that `done(ms)` runs when the call completes either way. */
function timed(original: (...args: unknown[]) => unknown, done: (ms: number) => void) {
  return function (this: unknown, ...args: unknown[]) {
    if (unmeteredClients.has(this as object)) return original.apply(this, args);
    const started = performance.now();
    const last = args[args.length - 1];
    if (typeof last === 'function') {
      args[args.length - 1] = (...results: unknown[]) => {
        done(performance.now() - started);
        (last as Callback)(...results);
      };
      return original.apply(this, args);
    }
    const result = original.apply(this, args);
    if (result && typeof (result as Promise<unknown>).then === 'function') {
      (result as Promise<unknown>).then(
        () => done(performance.now() - started),
        () => done(performance.now() - started),
      );
    }
    return result;
  };
}

export function installQueryMeter(): void {
  if (installed) return;
  installed = true;
  const client = pg.Client.prototype as unknown as { query: (...args: unknown[]) => unknown };
  client.query = timed(client.query, (ms) => {
    totals.queries += 1;
    totals.queryMs += ms;
  });
  const pool = pg.Pool.prototype as unknown as { connect: (...args: unknown[]) => unknown };
  pool.connect = timed(pool.connect, (ms) => {
    totals.poolWaits += 1;
    totals.poolWaitMs += ms;
  });
}

export function queryTotals(): QueryTotals {
  return { ...totals };
}

export function queryTotalsSince(before: QueryTotals): QueryTotals {
  return {
    queries: totals.queries - before.queries,
    queryMs: totals.queryMs - before.queryMs,
    poolWaits: totals.poolWaits - before.poolWaits,
    poolWaitMs: totals.poolWaitMs - before.poolWaitMs,
  };
}
