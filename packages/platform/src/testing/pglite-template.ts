import { writeFileSync } from 'node:fs';
import { PGlite, type Extensions } from '@electric-sql/pglite';
import { drizzle } from 'drizzle-orm/pglite';
import { migrate } from 'drizzle-orm/pglite/migrator';

/**
 * A service's migrated, empty database as a PGlite data-directory archive, written to `file`. Creating a
 * PGlite cluster (its initdb) takes seconds; an in-memory database started from this archive
 * (`memory://?from=<file>`) skips that and the migrations, so each test file's fresh database costs about
 * a second. Written once per test run (the global setup), never kept across runs.
 */
export async function writePgliteTemplate(file: string, options: { migrationsFolder: string; extensions?: Extensions }): Promise<void> {
  const client = await PGlite.create({ extensions: options.extensions ?? {} });
  try {
    await migrate(drizzle({ client }) as never, { migrationsFolder: options.migrationsFolder });
    const archive = await client.dumpDataDir('none');
    writeFileSync(file, Buffer.from(await archive.arrayBuffer()));
  } finally {
    await client.close();
  }
}
