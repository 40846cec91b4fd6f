import { sql, type AnyColumn, type SQL } from 'drizzle-orm';

/** Departments are compared trimmed and upper-cased (spec 4.1), so ' alpha' is ALPHA. */
export function normalizeDepartment(value: string | null | undefined): string {
  return (value ?? '').trim().toUpperCase();
}

/** SQL condition: the row's department column names `department` (already normalised). */
export function inDepartment(column: AnyColumn, department: string): SQL {
  return sql`upper(btrim(${column})) = ${department}`;
}
