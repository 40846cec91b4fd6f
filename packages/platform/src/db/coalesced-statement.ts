import pg from 'pg';
import type { Queryable } from './database.js';
import { driverClientOf, runStatement, statement, type Statement } from './statement.js';

/**
 * A point read that many requests make at once (the outbound scan), written over arrays: the statement
 * reads its items from `unnest($1::…[], $2::…[], …) with ordinality as item(…, n)` and answers each
 * row with its item's position as the integer column `item`. On a PostgreSQL pool the calls that arrive
 * while earlier ones are still at the database go together as one statement: one round trip, one
 * execution and one socket write for all of them instead of one each, which is most of what a point
 * read costs PostgreSQL and the service. When nothing is at the database, a call goes at the end of the
 * event loop's current turn, with whatever else that turn read.
 */
export interface CoalescedStatement<Row> {
  readonly statement: Statement<Row & { item: number }>;
}

export function coalescedStatement<Row>(name: string, text: string): CoalescedStatement<Row> {
  return { statement: statement(name, text) };
}

/** Statements of one kind at the database at the same time; the calls that arrive meanwhile wait and go together. */
const IN_FLIGHT = 2;
/** The most items one statement carries (the items beyond it go in the next). */
const MAX_ITEMS = 64;

/** Runs one item (its values, one per array parameter) and answers its rows, alone or with concurrent items. */
export function runCoalesced<Row>(q: Queryable, st: CoalescedStatement<Row>, values: readonly unknown[]): Promise<Row[]> {
  const client = driverClientOf(q);
  // inside a transaction or on PGlite (one engine, one call at a time) there is nothing to gain
  if (!(client instanceof pg.Pool)) return runItems(q, st, [values]).then(([rows]) => rows!);
  return queueOf(q, client, st).add(values);
}

interface Waiting<Row> {
  values: readonly unknown[];
  resolve(rows: Row[]): void;
  reject(error: unknown): void;
}

class Coalescer<Row> {
  private readonly waiting: Array<Waiting<Row>> = [];
  private inFlight = 0;
  private scheduled = false;

  constructor(
    private readonly q: Queryable,
    private readonly st: CoalescedStatement<Row>,
  ) {}

  add(values: readonly unknown[]): Promise<Row[]> {
    return new Promise((resolve, reject) => {
      this.waiting.push({ values, resolve, reject });
      this.schedule();
    });
  }

  /** After the current I/O turn, so that every request read in it joins the same statement. */
  private schedule(): void {
    if (this.scheduled || this.inFlight >= IN_FLIGHT) return;
    this.scheduled = true;
    setImmediate(() => {
      this.scheduled = false;
      while (this.waiting.length > 0 && this.inFlight < IN_FLIGHT) void this.send(this.waiting.splice(0, MAX_ITEMS));
    });
  }

  private async send(items: Array<Waiting<Row>>): Promise<void> {
    this.inFlight++;
    try {
      await settle(this.q, this.st, items);
    } finally {
      this.inFlight--;
      if (this.waiting.length > 0) this.schedule();
    }
  }
}

/**
 * Answers each item its rows. When the statement fails for a group (one item's value the database
 * refuses, say an integer out of range), every item runs again alone, so only the item at fault fails.
 */
async function settle<Row>(q: Queryable, st: CoalescedStatement<Row>, items: Array<Waiting<Row>>): Promise<void> {
  try {
    const answers = await runItems(q, st, items.map((item) => item.values));
    items.forEach((item, index) => item.resolve(answers[index]!));
  } catch (error) {
    if (items.length === 1) return items[0]!.reject(error);
    await Promise.all(items.map((item) => settle(q, st, [item])));
  }
}

/** One statement for the items: each array parameter holds the items' values at that position. */
async function runItems<Row>(q: Queryable, st: CoalescedStatement<Row>, items: ReadonlyArray<readonly unknown[]>): Promise<Row[][]> {
  const columns = (items[0] ?? []).map((_, position) => items.map((values) => values[position]));
  const rows = await runStatement(q, st.statement, columns);
  const answers: Row[][] = items.map(() => []);
  for (const row of rows) answers[row.item - 1]!.push(row);
  return answers;
}

/** One queue per pool and statement. */
const queues = new WeakMap<object, Map<string, Coalescer<unknown>>>();

function queueOf<Row>(q: Queryable, pool: object, st: CoalescedStatement<Row>): Coalescer<Row> {
  let byName = queues.get(pool);
  if (!byName) queues.set(pool, (byName = new Map()));
  let queue = byName.get(st.statement.name);
  if (!queue) byName.set(st.statement.name, (queue = new Coalescer(q, st as CoalescedStatement<unknown>)));
  return queue as Coalescer<Row>;
}
