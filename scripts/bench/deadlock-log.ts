import { closeSync, existsSync, openSync, readdirSync, readSync, statSync } from 'node:fs';
import { join } from 'node:path';

/**
 * Counts "deadlock detected" errors of one database in the PostgreSQL server log from now on, when the
 * log is a readable local file (BENCH_PG_LOG, else /var/log/postgresql/postgresql-*-main.log). Null when
 * no log can be read; the bench then relies on pg_stat_database.deadlocks alone.
 */
export interface DeadlockWatch {
  count(): number | null;
}

function findLog(): string | null {
  const configured = process.env.BENCH_PG_LOG;
  if (configured) return existsSync(configured) ? configured : null;
  const folder = '/var/log/postgresql';
  if (!existsSync(folder)) return null;
  const logs = readdirSync(folder).filter((name) => /^postgresql-[\d.]+-main\.log$/.test(name));
  return logs.length === 1 ? join(folder, logs[0]!) : null;
}

export function watchDeadlocks(database: string): DeadlockWatch {
  const path = findLog();
  let offset = 0;
  try {
    if (path) offset = statSync(path).size;
  } catch {
    return { count: () => null };
  }
  return {
    count() {
      if (!path) return null;
      try {
        const size = statSync(path).size;
        if (size <= offset) return 0;
        const buffer = Buffer.alloc(size - offset);
        const fd = openSync(path, 'r');
        try {
          readSync(fd, buffer, 0, buffer.length, offset);
        } finally {
          closeSync(fd);
        }
        const marker = `@${database} ERROR:  deadlock detected`;
        return buffer.toString('utf8').split('\n').filter((line) => line.includes(marker)).length;
      } catch {
        return null;
      }
    },
  };
}
