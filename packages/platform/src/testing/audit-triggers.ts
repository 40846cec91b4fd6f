import { sql } from 'drizzle-orm';
import { queryRows, type Database } from '../db/database.js';

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
