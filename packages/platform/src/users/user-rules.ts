import { eq, sql, type AnyColumn, type SQL } from 'drizzle-orm';
import type { PgColumn, PgTable } from 'drizzle-orm/pg-core';
import type { Queryable } from '../db/database.js';
import type { Actor } from '../auth/actor.js';
import { keywordMatch } from '../db/scope-sql.js';
import { AppError } from '../errors.js';

/** The filters of both user lists besides the caller's scope: keyword (username or name), role, active. */
export function userListConditions(
  columns: { username: AnyColumn; name: AnyColumn; role: AnyColumn; active: AnyColumn },
  query: { keyword?: string; role?: string; active?: boolean },
): (SQL | undefined)[] {
  const conditions: (SQL | undefined)[] = [];
  conditions.push(keywordMatch(query.keyword, columns.username, columns.name));
  if (query.role) conditions.push(eq(columns.role, query.role));
  if (query.active !== undefined) conditions.push(eq(columns.active, query.active));
  return conditions;
}

export const usernameTaken = (username: string) => new AppError('DUPLICATE', `用户名 ${username} 已存在`, { username });

/**
 * 409 DUPLICATE naming the first of `usernames` already taken, whatever its case: usernames differing only in
 * case name one person (the login throttle counts them as one). One query for any number of names.
 */
export async function assertUsernamesFree(q: Queryable, table: PgTable, username: PgColumn, usernames: readonly string[]): Promise<void> {
  const lowered = usernames.map((name) => name.toLowerCase());
  const taken = await q
    .select({ username })
    .from(table)
    .where(sql`lower(${username}) = any(${sql.param(lowered)}::text[])`)
    .limit(1);
  if (taken.length === 0) return;
  const stored = String(taken[0]!.username).toLowerCase();
  throw usernameTaken(usernames.find((name) => name.toLowerCase() === stored) ?? usernames[0]!);
}

/** Nobody deactivates their own account, so an administrator cannot lock themselves out. */
export function refuseSelfDeactivation(actor: Actor, userId: number, active: boolean | undefined): void {
  if (userId === actor.id && active === false) throw new AppError('STATUS_NOT_ALLOWED', '不能停用自己的账号');
}

/**
 * A user PATCH names at least one of `fields`: the schema drops unknown fields after its own "at least one
 * property" check, so a body of only unknown fields is refused here as `{}` is there.
 */
export function requirePatchedField<Body extends object>(input: Body, fields: readonly (keyof Body & string)[]): void {
  if (!fields.some((field) => input[field] !== undefined)) {
    throw new AppError('VALIDATION_FAILED', `没有需要修改的字段（可修改: ${fields.join(', ')}）`, { field: 'body' });
  }
}

/**
 * The columns of a user PATCH whose value differs from the stored one (undefined means "not named"). A
 * PATCH that changes nothing must write nothing: a bare updated_at change would be audited as a
 * credential change. Unknown body fields were dropped by the schema, so a body of only those is `{}`.
 */
export function changedUserColumns<Row extends object>(current: Row, wanted: Partial<Row>): Partial<Row> {
  return Object.fromEntries(
    Object.entries(wanted).filter(([column, value]) => value !== undefined && value !== current[column as keyof Row]),
  ) as Partial<Row>;
}

/** The fields every user answer carries, never the password hash; each service adds its placement. */
export function baseUserView(row: { id: number; username: string; name: string; role: string; active: boolean; createdAt: Date }) {
  return {
    id: row.id,
    username: row.username,
    name: row.name,
    role: row.role,
    active: row.active,
    created_at: row.createdAt.toISOString(),
  };
}
