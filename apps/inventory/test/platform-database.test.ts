import { spawnSync } from 'node:child_process';
import { once } from 'node:events';
import { createServer, connect, type AddressInfo, type Socket } from 'node:net';
import { cpSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { coalescedStatement, openDatabase, DataDirLockedError, queryRows, runCoalesced, runStatement, statement, type Queryable } from '@wms/platform';
import { writePgliteTemplate } from '@wms/platform/testing';
import { INVENTORY_MIGRATIONS, INVENTORY_PGLITE_EXTENSIONS } from '../src/app.js';
import { buildTestInventory, type TestInventory } from './helpers.js';

const usingPostgres = Boolean(process.env.TEST_DATABASE_URL);

describe('database engine', () => {
  let t: TestInventory;
  beforeAll(async () => {
    t = await buildTestInventory();
  });
  afterAll(() => t.close());

  it('never interleaves 50 concurrent read-modify-write transactions', async () => {
    const { database } = t.service.deps;
    await database.transaction({ actor: 'test' }, (tx) => tx.execute(sql`create table if not exists counter (n int not null)`));
    await database.transaction({ actor: 'test' }, (tx) => tx.execute(sql`insert into counter values (0)`));
    const increments = Array.from({ length: 50 }, () =>
      database.transaction({ actor: 'test' }, async (tx) => {
        // on PostgreSQL the row lock makes this safe; on PGlite (one connection) the mutex must
        const locking = usingPostgres ? sql` for update` : sql``;
        const [row] = await queryRows<{ n: number }>(tx, sql`select n from counter${locking}`);
        const n = row!.n;
        await new Promise((resolve) => setImmediate(resolve));
        await tx.execute(sql`update counter set n = ${n + 1}`);
      }),
    );
    await Promise.all(increments);
    const [final] = await database.read((q) => queryRows<{ n: number }>(q, sql`select n from counter`));
    expect(final!.n).toBe(50);
  });

  // PGlite never waits on a socket: without a look at the sockets after the transaction, a twin request that
  // arrived while it ran would be read only after the first call had answered and released its lock (spec 5.4).
  it.skipIf(usingPostgres)('reads what arrived on the sockets during a transaction before its caller goes on', async () => {
    const server = createServer();
    server.listen(0, '127.0.0.1');
    await once(server, 'listening');
    const accepted = once(server, 'connection') as Promise<[Socket]>;
    const client = connect((server.address() as AddressInfo).port, '127.0.0.1');
    const [socket] = await accepted;
    await once(client, 'connect');
    let read = '';
    socket.on('data', (chunk: Buffer) => (read += chunk.toString()));
    try {
      await t.service.deps.database.transaction({ actor: 'test' }, async (tx) => {
        await tx.execute(sql`select 1`);
        client.write('twin');
        await tx.execute(sql`select 2`);
      });
      expect(read).toBe('twin');
    } finally {
      client.destroy();
      server.close();
    }
  });

  it('keeps the stock invariants in the database itself', async () => {
    const { database } = t.service.deps;
    await database.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`insert into materials (name, category, company_name) values ('约束测试', 'ALPHA/测试', 'ALPHA')`),
    );
    const insert = (sku: string, stock: number, available: number, kind = 'stock_buy') =>
      database.transaction({ actor: 'test' }, (tx) =>
        tx.execute(sql`insert into stock_rows (source_table, sku, base_id, stock_quantity, available_quantity, in_quantity)
          values (${kind}, ${sku}, (select max(id) from materials), ${stock}, ${available}, ${stock})`),
      );
    await expect(insert('INV-1', 5, 6)).rejects.toThrow();
    await expect(insert('INV-2', 5, -1)).rejects.toThrow();
    await insert('INV-OK', 5, 5);
    await expect(insert('INV-OK', 1, 1, 'stock_product')).rejects.toThrow();
    await expect(
      database.transaction({ actor: 'test' }, (tx) => tx.execute(sql`update stock_rows set available_quantity = available_quantity - 6 where sku = 'INV-OK'`)),
    ).rejects.toThrow();
    const [row] = await database.read((q) => queryRows<{ a: string }>(q, sql`select available_quantity::text as a from stock_rows where sku = 'INV-OK'`));
    expect(row!.a).toBe('5');
  });

  it('never reports a transaction as done when a statement in it failed, even if the error was caught', async () => {
    const { database } = t.service.deps;
    const swallowed = database.transaction({ actor: 'test' }, async (tx) => {
      await tx.execute(sql`insert into materials (name, category, company_name) values ('吞掉的错误', 'ALPHA/测试', 'ALPHA')`);
      await tx.execute(sql`select 1 / 0`).catch(() => undefined);
      return 'done';
    });
    await expect(swallowed).rejects.toThrow();
    const found = await database.read((q) => queryRows(q, sql`select 1 from materials where name = '吞掉的错误'`));
    expect(found).toEqual([]);
  });

  it('puts the audit trigger on every business table', async () => {
    // stock_row_companies is derived from stock_rows and materials by triggers (decisions Platform 23)
    const technical = new Set(['audit_logs', 'counter', 'notification_outbox', 'mail_outbox', 'scan_drafts', 'idempotency_keys', 'role_versions', 'stock_row_companies']);
    const result = await t.service.deps.database.read((q) =>
      queryRows<{ table_name: string; audited: boolean }>(q, sql`select c.relname as table_name,
          exists (select 1 from pg_trigger tg where tg.tgrelid = c.oid and tg.tgname like 'audit_%') as audited
        from pg_class c join pg_namespace n on n.oid = c.relnamespace
        where n.nspname = 'public' and c.relkind = 'r'`),
    );
    const missing = result
      .filter((row) => !row.audited && !technical.has(row.table_name))
      .map((row) => row.table_name);
    expect(missing).toEqual([]);
  });

  // A statement taking an array is estimated at ten elements, so PostgreSQL's own choice would plan it anew
  // on every call; the batch runs it on its generic plan and leaves the setting as it was for the rest.
  it('runs prepared statements on their generic plan, and only them', async () => {
    const { database } = t.service.deps;
    const byIds = statement<{ id: number }>('generic_plan_probe', 'select id from users where id = any($1::int[]) order by id');
    const [plans, mode] = await database.transaction({ actor: 'test' }, async (tx) => {
      for (let i = 0; i < 8; i++) await runStatement(tx, byIds, [[1, 2, 3].slice(0, 1 + (i % 3))]);
      const [counts] = await queryRows<{ generic_plans: number; custom_plans: number }>(
        tx,
        sql`select generic_plans::int, custom_plans::int from pg_prepared_statements where name = 'sql_generic_plan_probe'`,
      );
      const [setting] = await queryRows<{ plan_cache_mode: string }>(tx, sql`select current_setting('plan_cache_mode') as plan_cache_mode`);
      return [counts, setting?.plan_cache_mode] as const;
    });
    expect(plans).toEqual({ generic_plans: 8, custom_plans: 0 });
    expect(mode).toBe('auto');
  });

  // PGlite: openDatabase makes the instance read these types as text and drops the per-call parsers that
  // only restate it (PGlite copies its whole parser table for them on every call); every path must still
  // answer what drizzle's own parsers give.
  it('answers timestamps, dates, intervals and numeric arrays as text on every path', async () => {
    const { database } = t.service.deps;
    const shapes = `select '2026-11-24 10:00:00+00'::timestamptz as at, '2026-11-24'::date as day, '1 day'::interval as span,
                           array['2026-11-24 10:00:00+00']::timestamptz[] as ats, array[1.50, 2]::numeric[] as amounts,
                           42::int as n, true as yes, '{"a":1}'::jsonb as doc`;
    const viaDrizzle = async (q: Queryable) => (await queryRows<Record<string, unknown>>(q, sql.raw(shapes)))[0];
    const [fromRead, [fromTransaction, fromStatement]] = await Promise.all([
      database.read(viaDrizzle),
      database.transaction({ actor: 'test' }, async (tx) => [await viaDrizzle(tx), (await runStatement(tx, statement('text_types_shapes', shapes), []))[0]]),
    ]);
    expect(fromRead).toMatchObject({ day: '2026-11-24', span: '1 day', amounts: '{1.50,2}', n: 42, yes: true, doc: { a: 1 } });
    expect(fromRead!.at).toMatch(/^2026-11-2[45] \d\d:00:00[+-]\d\d/);
    expect(fromRead!.ats).toMatch(/^\{"2026-11-2[45] \d\d:00:00[+-]\d\d"\}$/);
    expect(fromTransaction).toEqual(fromRead);
    expect(fromStatement).toEqual(fromRead);
  });

  // Point reads made at the same moment go to PostgreSQL as one statement over arrays (the outbound scan);
  // each caller still gets only its own rows, and a value the database refuses fails only its own call.
  it('runs concurrent point reads together, each answered its own rows, a refused one failing alone', async () => {
    const { database } = t.service.deps;
    const echo = coalescedStatement<{ value: number; at: string }>(
      'coalesced_echo_probe',
      `select item.n::int as item, item.value, statement_timestamp()::text as at
         from unnest($1::int[], $2::int[]) with ordinality as item(value, copies, n), generate_series(1, item.copies)`,
    );
    const read = (value: number, copies: number) => database.read((q) => runCoalesced(q, echo, [value, copies]));
    const answers = await Promise.all(Array.from({ length: 40 }, (_, i) => read(i, i % 3)));
    answers.forEach((rows, i) => expect(rows.map((row) => row.value)).toEqual(Array(i % 3).fill(i)));
    const statements = new Set(answers.flat().map((row) => row.at));
    if (usingPostgres) expect(statements.size).toBeLessThan(10);

    const withRefused = await Promise.allSettled([read(1, 1), read(3_000_000_000, 1), read(2, 1)]);
    expect(withRefused.map((settled) => settled.status)).toEqual(['fulfilled', 'rejected', 'fulfilled']);
    expect((withRefused[2] as PromiseFulfilledResult<Array<{ value: number }>>).value).toMatchObject([{ value: 2 }]);
  });
});

describe.skipIf(usingPostgres)('PGlite data folder', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wms-pglite-'));
  const dataDir = join(dir, 'inventory');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('refuses a second opener in this process and in another process, and reopens cleanly after close', async () => {
    const first = await openDatabase({ url: dataDir, migrationsFolder: INVENTORY_MIGRATIONS, pgliteExtensions: INVENTORY_PGLITE_EXTENSIONS });
    await first.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`insert into materials (name, category, company_name) values ('持久化', 'ALPHA/测试', 'ALPHA')`),
    );
    await expect(openDatabase({ url: dataDir, migrationsFolder: INVENTORY_MIGRATIONS, pgliteExtensions: INVENTORY_PGLITE_EXTENSIONS })).rejects.toBeInstanceOf(DataDirLockedError);

    const script = fileURLToPath(new URL('./support/open-data-dir.ts', import.meta.url));
    // the second process fails on the lock, before it ever opens the folder
    const child = spawnSync(process.execPath, ['--import', 'tsx', script, dataDir], { encoding: 'utf8', timeout: 120_000 });
    expect(child.stderr + child.stdout).toContain('正被进程');
    expect(child.status).toBe(3);

    await first.close();
    const again = await openDatabase({ url: dataDir, migrationsFolder: INVENTORY_MIGRATIONS, pgliteExtensions: INVENTORY_PGLITE_EXTENSIONS });
    const rows = await again.read((q) => queryRows(q, sql`select name from materials`));
    expect(rows).toEqual([{ name: '持久化' }]);
    await again.close();
  });
});

describe.skipIf(usingPostgres)('PGlite started from an archive (memory://?from=)', () => {
  const dir = mkdtempSync(join(tmpdir(), 'wms-pglite-archive-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('is a copy of the archived database per start, with the migrations the archive lacks applied', async () => {
    // an archive one migration behind: the folder with the journal's last entry left out
    const behind = join(dir, 'migrations');
    cpSync(INVENTORY_MIGRATIONS, behind, { recursive: true });
    const journalFile = join(behind, 'meta', '_journal.json');
    const journal = JSON.parse(readFileSync(journalFile, 'utf8')) as { entries: unknown[] };
    writeFileSync(journalFile, JSON.stringify({ ...journal, entries: journal.entries.slice(0, -1) }));
    const archive = join(dir, 'inventory.tar');
    await writePgliteTemplate(archive, { migrationsFolder: behind, extensions: INVENTORY_PGLITE_EXTENSIONS });

    const open = () =>
      openDatabase({ url: `memory://?from=${encodeURIComponent(archive)}`, migrationsFolder: INVENTORY_MIGRATIONS, pgliteExtensions: INVENTORY_PGLITE_EXTENSIONS });
    const [first, second] = [await open(), await open()];
    const applied = (q: Queryable) => queryRows<{ n: number }>(q, sql`select count(*)::int as n from drizzle.__drizzle_migrations`);
    expect(await first.read(applied)).toEqual([{ n: journal.entries.length }]);

    await first.transaction({ actor: 'test' }, (tx) =>
      tx.execute(sql`insert into materials (name, category, company_name) values ('只在第一个', 'ALPHA/测试', 'ALPHA')`),
    );
    const names = (q: Queryable) => queryRows<{ name: string }>(q, sql`select name from materials`);
    expect(await first.read(names)).toEqual([{ name: '只在第一个' }]);
    expect(await second.read(names)).toEqual([]);
    await Promise.all([first.close(), second.close()]);
  });
});
