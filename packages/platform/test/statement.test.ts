import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PGlite } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { runStatement, sharePreparedStatements, statement } from '../src/db/statement.js';
import type { Queryable } from '../src/db/database.js';

/**
 * On PGlite a statement's values are written into the SQL as literals (one simple query instead of six
 * protocol calls): whatever a caller sends must come back exactly as sent, never as SQL.
 */
describe('runStatement on PGlite', () => {
  let client: PGlite;
  let q: Queryable;
  beforeAll(async () => {
    client = await PGlite.create();
    q = drizzle({ client }) as unknown as Queryable;
  });
  afterAll(() => client.close());

  const tricky = ["it's", 'back\\slash', '"quoted"', "'); drop table x; --", '$1 $2', '{a,b}', '中文 <急件>', ''];
  const echo = statement<{ text: string; texts: string[]; ints: number[]; amount: string; nothing: string | null }>(
    'echo_values',
    'select $1::text as text, $2::text[] as texts, $3::int[] as ints, $4::numeric as amount, $5::text as nothing',
  );

  for (const prepared of [false, true]) {
    it(`returns every value as sent (${prepared ? 'prepared' : 'plain'})`, async () => {
      if (prepared) sharePreparedStatements(client);
      for (const value of tricky) {
        const [row] = await runStatement(q, echo, [value, tricky, [1, -2, 3], '-12.50', null]);
        expect(row).toEqual({ text: value, texts: tricky, ints: [1, -2, 3], amount: '-12.50', nothing: null });
      }
    });
  }

  it('keeps timestamps as the database wrote them, as drizzle does', async () => {
    const [row] = await runStatement(q, statement<{ at: string }>('echo_time', `select '2026-11-24 10:00:00+00'::timestamptz as at`), []);
    expect(typeof row!.at).toBe('string');
  });
});
