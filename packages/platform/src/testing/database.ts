import { randomBytes } from 'node:crypto';
import pg from 'pg';

/**
 * A database URL for one test file: a fresh PostgreSQL database when TEST_DATABASE_URL is set
 * (so files never see each other's rows or leftovers of earlier runs), else an in-memory PGlite,
 * started from `pgliteTemplate` (writePgliteTemplate) when there is one.
 */
export async function createTestDatabase(prefix = 't', pgliteTemplate?: string): Promise<{ url: string; drop: () => Promise<void> }> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) {
    const url = pgliteTemplate ? `memory://?from=${encodeURIComponent(pgliteTemplate)}` : 'memory://';
    return { url, drop: async () => undefined };
  }
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(4).toString('hex')}`;
  const admin = new pg.Client({ connectionString: base });
  await admin.connect();
  try {
    await admin.query(`CREATE DATABASE "${name}"`);
  } finally {
    await admin.end();
  }
  const url = new URL(base);
  url.pathname = `/${name}`;
  return {
    url: url.toString(),
    drop: async () => {
      const client = new pg.Client({ connectionString: base });
      await client.connect();
      try {
        await client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`);
      } finally {
        await client.end();
      }
    },
  };
}

export const usingPostgres = () => Boolean(process.env.TEST_DATABASE_URL);
export const usingRedis = () => Boolean(process.env.TEST_REDIS_URL);
