import { eq, ilike, or, sql, type AnyColumn, type SQL } from 'drizzle-orm';
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

/** A list's keyword as a LIKE pattern (wildcards literal); undefined when it is absent or only spaces (no filter). */
export function keywordPattern(keyword: string | undefined): string | undefined {
  const text = keyword?.trim();
  return text ? likePattern(text) : undefined;
}

/**
 * A list's keyword (contract §8) on any of `columns`: a case-insensitive substring, wildcards literal; no
 * condition when the keyword is absent or only spaces.
 */
export function keywordMatch(keyword: string | undefined, ...columns: (AnyColumn | SQL)[]): SQL | undefined {
  const pattern = keywordPattern(keyword);
  return pattern ? or(...columns.map((column) => ilike(column as AnyColumn, pattern))) : undefined;
}
