import { sql, type SQL } from 'drizzle-orm';
import { queryRows, type AuditContext, type Database } from '../db/database.js';

/**
 * What is wrong with a database's audit triggers (decisions, Platform 8), as readable lines; none when
 * every audited table has one statement-level trigger per event and each names exactly the table's
 * credential-like columns (a migration that adds such a column must call audit_attach() again).
 */
export async function auditTriggerProblems(database: Database): Promise<{ tables: number; problems: string[] }> {
  const triggers = await database.read((q) =>
    queryRows<{ table_name: string; definition: string; credentials: string }>(
      q,
      sql`select c.relname as table_name, pg_get_triggerdef(tg.oid) as definition,
                 coalesce((select array_agg(a.attname::text order by a.attnum) from pg_attribute a
                            where a.attrelid = c.oid and a.attnum > 0 and not a.attisdropped
                              and a.attname ~* '(password|passwd|secret|token|private_key)'), '{}')::text as credentials
            from pg_trigger tg join pg_class c on c.oid = tg.tgrelid
           where tg.tgname like 'audit\\_%' and not tg.tgisinternal`,
    ),
  );
  const problems: string[] = [];
  const tables = new Set(triggers.map((trigger) => trigger.table_name));
  for (const table of tables) {
    const own = triggers.filter((trigger) => trigger.table_name === table);
    const events = own.map((trigger) => /AFTER (\w+) ON/.exec(trigger.definition)?.[1]).sort();
    if (events.join() !== 'DELETE,INSERT,UPDATE') problems.push(`${table}: triggers for ${events.join()}`);
    for (const { definition, credentials } of own) {
      if (!definition.includes('FOR EACH STATEMENT EXECUTE FUNCTION audit_capture_statement(')) problems.push(`${table}: ${definition}`);
      else if (!definition.endsWith(`, '${credentials}')`)) problems.push(`${table}: credential columns ${credentials}, trigger ${definition}`);
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
