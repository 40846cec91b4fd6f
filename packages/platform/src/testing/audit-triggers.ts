import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type AuditContext, type Database } from '../db/database.js';

/**
 * What is wrong with a database's audit triggers (decisions, Platform 8), as readable lines; none when
 * every audited table has one statement-level trigger per event, all three call the table's own
 * generated function `audit_<table>_capture` with the arguments audit_attach() was given and exactly the
 * table's credential-like columns, and that function is what audit_capture_source() generates from the
 * table's columns now. A migration that adds, drops, renames or retypes a column of an audited table (a
 * credential-like one included) must call audit_attach() again, or its records would miss the change.
 */
export async function auditTriggerProblems(database: Database): Promise<{ tables: number; problems: string[] }> {
  const triggers = await database.read((q) =>
    queryRows<{ table_name: string; definition: string; credentials: string; function_name: string; source: string; args: string[] }>(
      q,
      sql`select c.relname as table_name, pg_get_triggerdef(tg.oid) as definition,
                 coalesce((select array_agg(a.attname::text order by a.attnum) from pg_attribute a
                            where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                              and a.attname ~* '(password|passwd|secret|token|private_key)'), '{}')::text as credentials,
                 p.proname::text as function_name, p.prosrc as source,
                 (select coalesce(array_agg(convert_from(decode(arg, 'escape'), 'UTF8') order by n), '{}')
                    from unnest(string_to_array(encode(tg.tgargs, 'escape'), '\\000')) with ordinality as u(arg, n)
                   where n <= tg.tgnargs) as args
            from pg_trigger tg join pg_class c on c.oid = tg.tgrelid join pg_proc p on p.oid = tg.tgfoid
           where tg.tgname like 'audit\\_%' and not tg.tgisinternal`,
    ),
  );
  const problems: string[] = [];
  const tables = new Set(triggers.map((trigger) => trigger.table_name));
  for (const table of tables) {
    const own = triggers.filter((trigger) => trigger.table_name === table);
    const events = own.map((trigger) => /AFTER (\w+) ON/.exec(trigger.definition)?.[1]).sort();
    if (events.join() !== 'DELETE,INSERT,UPDATE') problems.push(`${table}: triggers for ${events.join()}`);
    const capture = `audit_${table}_capture`;
    for (const { definition, credentials, function_name } of own) {
      if (!definition.includes(`FOR EACH STATEMENT EXECUTE FUNCTION ${capture}(`) || function_name !== capture) problems.push(`${table}: ${definition}`);
      else if (!definition.endsWith(`, '${credentials}')`)) problems.push(`${table}: credential columns ${credentials}, trigger ${definition}`);
    }
    if (new Set(own.map((trigger) => JSON.stringify(trigger.args))).size !== 1) problems.push(`${table}: its triggers have different arguments`);
    const [first] = own;
    if (!first || first.function_name !== capture) continue;
    const [module, nameColumn, idColumn] = first.args;
    try {
      const [generated] = await database.read((q) =>
        queryRows<{ source: string }>(q, sql`select audit_capture_source(${table}::regclass, ${module}, ${nameColumn}, ${idColumn}) as source`),
      );
      if (generated?.source !== first.source) {
        problems.push(`${table}: ${capture}() was generated for other columns than the table has now; call audit_attach() again in the migration that changed them`);
      }
    } catch (err) {
      const reason = ((err as { cause?: Error }).cause ?? (err as Error)).message;
      problems.push(`${table}: ${capture}() cannot be generated again (${reason}); call audit_attach() again in the migration that changed the table`);
    }
  }
  return { tables: tables.size, problems };
}

/** Runs the statements in one transaction with the given audit context, as a service's transaction would. */
export function runAudited(database: Database, statements: readonly SQL[], audit: AuditContext): Promise<void> {
  return database.transaction(audit, async (tx) => {
    for (const statement of statements) await tx.execute(statement);
  });
}

/** The id of the newest audit record (0 when none): the mark to read the next records from. */
export async function lastAuditId(database: Database): Promise<number> {
  const [row] = await database.read((q) => queryRows<{ id: string | null }>(q, sql`select max(id)::text as id from audit_logs`));
  return Number(row?.id ?? 0);
}

/** The records of a table written after `since`, in the order they were written; `owner` is the service's company column. */
export function auditRecordsSince<Row>(database: Database, since: number, table: string, owner: 'company_name' | 'department'): Promise<Row[]> {
  return database.read((q) =>
    queryRows<Row>(
      q,
      sql`select action, table_name, target_id, target_name, username, ${sql.identifier(owner)}, request_url, details
            from audit_logs where id > ${since} and table_name = ${table} order by id`,
    ),
  );
}

/**
 * Test only: puts the generic capture of an earlier migration (`audit_capture_statement()`, its text taken
 * from that migration file, so it is exactly what shipped) beside every table's generated one. A second
 * trigger per table and event (`<trigger>_generic`, fired right after the generated one, triggers firing in
 * name order) runs it on the same transition tables and writes into `audit_logs_generic`, a copy of
 * audit_logs that shares its id sequence. One run of statements then gives both captures of the very same
 * rows. Returns the number of triggers added.
 */
export async function attachGenericCaptureBeside(database: Database, migrationText: string): Promise<number> {
  const create = migrationText.split('--> statement-breakpoint').find((part) => part.includes('CREATE FUNCTION audit_capture_statement()'));
  if (!create) throw new Error('the migration text has no CREATE FUNCTION audit_capture_statement()');
  const parts = create.split('INSERT INTO audit_logs (');
  if (parts.length !== 4) throw new Error(`expected 3 INSERTs into audit_logs in audit_capture_statement(), found ${parts.length - 1}`);
  return database.transaction({ actor: 'setup' }, async (tx) => {
    await tx.execute(sql`create table audit_logs_generic (like audit_logs including defaults)`);
    await tx.execute(sql.raw(parts.join('INSERT INTO audit_logs_generic (')));
    const triggers = await queryRows<{ name: string; definition: string }>(
      tx,
      sql`select tgname as name, pg_get_triggerdef(oid) as definition from pg_trigger where tgname like 'audit\\_%' and not tgisinternal`,
    );
    for (const { name, definition } of triggers) {
      const generic = definition
        .replace(`CREATE TRIGGER ${name} `, `CREATE TRIGGER ${name}_generic `)
        .replace(/EXECUTE FUNCTION audit_\w+_capture\(/, 'EXECUTE FUNCTION audit_capture_statement(');
      if (!generic.includes(`${name}_generic`) || !generic.includes('audit_capture_statement(')) throw new Error(`unexpected trigger ${definition}`);
      await tx.execute(sql.raw(generic));
    }
    return triggers.length;
  });
}

/**
 * Since the capture migrations 0029 (inventory) and 0010 (tracking), an UPDATE record's snapshot holds only
 * the row's sku and reference columns (names ending in _id), and no snapshot when the table has none. This
 * cuts the generic capture's whole-row snapshots of the records written after `since` down to that, so the
 * comparison checks the rest of every record unchanged and the kept fields value for value (jsonb values,
 * so 12.50 stays 12.50).
 */
export function keepIdentityInGenericUpdates(database: Database, since: number): Promise<void> {
  return database.transaction({ actor: 'setup' }, async (tx) => {
    await tx.execute(sql`update audit_logs_generic g
                            set details = (g.details - 'snapshot') || coalesce(
                                  (select jsonb_build_object('snapshot', jsonb_object_agg(e.key, e.value))
                                     from jsonb_each(g.details->'snapshot') e
                                    where e.key = 'sku' or e.key like '%\_id'
                                   having count(*) > 0), '{}')
                          where g.id > ${since} and g.action = 'UPDATE'`);
  });
}

/** Every column of the records written after `since` into audit_logs or audit_logs_generic but the id, details as jsonb's text, in write order. */
export function capturedRecords(
  database: Database,
  table: 'audit_logs' | 'audit_logs_generic',
  since: number,
  owner: 'company_name' | 'department',
): Promise<Array<Record<string, string | null>>> {
  return database.read((q) =>
    queryRows<Record<string, string | null>>(
      q,
      sql`select module, action, table_name, target_id, target_name, username, ${sql.identifier(owner)} as owner, request_url,
                 details::text as details, created_at::text as created_at
            from ${sql.identifier(table)} where id > ${since} order by id`,
    ),
  );
}

/**
 * Runs statements for the capture comparison: each in a savepoint of one transaction per call, so one
 * that fails (a foreign key) is undone and counted instead of ending the run. `databaseOf` is read per call
 * (a test's database exists only once its app is built).
 */
export function stepwiseRunner(databaseOf: () => Database) {
  let failed = 0;
  const run = (audit: AuditContext, statements: readonly SQL[]) =>
    databaseOf().transaction(audit, async (tx) => {
      for (const statement of statements) {
        await tx.execute(sql`savepoint step`);
        try {
          await tx.execute(statement);
          await tx.execute(sql`release savepoint step`);
        } catch {
          await tx.execute(sql`rollback to savepoint step`);
          failed += 1;
        }
      }
    });
  return { run, failedSteps: () => failed };
}

/**
 * Every table with the generic capture beside it (attachGenericCaptureBeside): a no-op UPDATE of every
 * row, updated_at alone on every row, then DELETE of every row (several passes, so rows whose references
 * went first can go too; refused ones are undone). Answers the number of tables swept.
 */
export async function sweepAuditedTables(database: Database, run: (statements: readonly SQL[]) => Promise<void>): Promise<number> {
  const tables = await database.read((q) =>
    queryRows<{ table_name: string; first_column: string; has_updated_at: boolean }>(
      q,
      sql`select c.relname as table_name,
                 (select a.attname from pg_attribute a where a.attrelid = c.oid and a.attnum = 1) as first_column,
                 exists (select from pg_attribute a where a.attrelid = c.oid and a.attname = 'updated_at' and not a.attisdropped) as has_updated_at
            from pg_class c where exists (select from pg_trigger tg where tg.tgrelid = c.oid and tg.tgname like 'audit\\_%\\_generic')
           order by c.relname`,
    ),
  );
  await run(
    tables.flatMap(({ table_name, first_column, has_updated_at }) => [
      sql`update ${sql.identifier(table_name)} set ${sql.identifier(first_column)} = ${sql.identifier(first_column)}`,
      ...(has_updated_at ? [sql`update ${sql.identifier(table_name)} set updated_at = updated_at + interval '1 second'`] : []),
    ]),
  );
  for (let pass = 0; pass < 3; pass += 1) await run(tables.map(({ table_name }) => sql`delete from ${sql.identifier(table_name)}`));
  return tables.length;
}
