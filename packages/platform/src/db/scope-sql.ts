import { eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { CompanyScope } from '../auth/company-scope.js';

/** The company scope as a WHERE condition: no condition for all, an explicit false for none. */
export function companyCondition(scope: CompanyScope, column: AnyColumn | SQL): SQL | undefined {
  if (scope.kind === 'all') return undefined;
  if (scope.kind === 'none') return sql`false`;
  return eq(column as AnyColumn, scope.company);
}

/**
 * Case-insensitive substring match of a keyword (what ILIKE '%keyword%' matches), written
 * lower(column) LIKE lower(pattern) so a trigram index on lower(column) serves it.
 */
export function containsIgnoringCase(column: AnyColumn | SQL, keyword: string): SQL {
  return sql`lower(${column}) like lower(${likePattern(keyword)})`;
}

/** Escapes LIKE wildcards so a keyword is matched literally. */
export function likePattern(keyword: string): string {
  return `%${keyword.replace(/[\\%_]/g, (c) => `\\${c}`)}%`;
}
