import { randomBytes } from 'node:crypto';
import pg from 'pg';

export interface ScratchDatabase {
  name: string;
  url: string;
  drop(): Promise<void>;
}

async function onServer<T>(serverUrl: string, fn: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: serverUrl });
  await client.connect();
  try {
    return await fn(client);
  } finally {
    await client.end();
  }
}

/** A new empty database on the server of `serverUrl`; drop() removes it even with open connections. */
export async function createScratchDatabase(serverUrl: string, prefix: string): Promise<ScratchDatabase> {
  const name = `${prefix}_${Date.now().toString(36)}_${randomBytes(3).toString('hex')}`;
  await onServer(serverUrl, (client) => client.query(`CREATE DATABASE "${name}"`));
  const url = new URL(serverUrl);
  url.pathname = `/${name}`;
  return {
    name,
    url: url.toString(),
    drop: async () => {
      await onServer(serverUrl, (client) => client.query(`DROP DATABASE IF EXISTS "${name}" WITH (FORCE)`));
    },
  };
}

/** Deadlocks PostgreSQL detected in one database since the statistics were last reset. */
export async function deadlocksOf(serverUrl: string, database: string): Promise<number> {
  return onServer(serverUrl, async (client) => {
    const result = await client.query<{ deadlocks: string }>('select deadlocks from pg_stat_database where datname = $1', [database]);
    return Number(result.rows[0]?.deadlocks ?? 0);
  });
}
