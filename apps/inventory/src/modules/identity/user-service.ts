import { and, asc, count, eq, ne, sql } from 'drizzle-orm';
import {
  AppError,
  assertUsernamesFree,
  changedUserColumns,
  companyCondition,
  forbidden,
  hashPassword,
  isCrossDomain,
  isSuperAdmin,
  notFound,
  pageOf,
  pagingOf,
  refuseSelfDeactivation,
  requirePatchedField,
  timeRangeCondition,
  userListConditions,
  usernameTaken,
  validationFailed,
  type Tx,
  type UseCaseContext,
} from '@wms/platform';
import { users } from '../../db/schema/index.js';
import { companyForCreate } from './company-rules.js';
import { toUserView } from './user-mapper.js';
import type { CreateUserBody, UpdateUserBody, UserListQuery } from './schemas.js';

export async function listUsers(ctx: UseCaseContext, query: UserListQuery) {
  const paging = pagingOf(query);
  const where = and(
    companyCondition(ctx.scope(query.company), users.companyName),
    ...userListConditions(users, query),
    timeRangeCondition(users.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q.select().from(users).where(where).orderBy(asc(users.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(users).where(where);
    return pageOf(rows.map(toUserView), total?.n ?? 0, paging);
  });
}

/** Only a SUPER_ADMIN can hand out SUPER_ADMIN: otherwise user management would be an escalation path. */
function assertMayAssignRole(ctx: UseCaseContext, role: string | undefined) {
  if (role === 'SUPER_ADMIN' && !isSuperAdmin(ctx.actor)) throw forbidden('只有超级管理员可以授予超级管理员角色');
}

/** A user to insert, its password already hashed: scrypt runs before the transaction, never inside it. */
interface NewUser {
  input: CreateUserBody;
  passwordHash: string;
}

async function hashedUser(input: CreateUserBody): Promise<NewUser> {
  return { input, passwordHash: await hashPassword(input.password) };
}

/** Inserts users whose role the caller may assign and whose usernames are free (both checked by the caller). */
async function insertUser(ctx: UseCaseContext, tx: Tx, { input, passwordHash }: NewUser) {
  const [row] = await tx
    .insert(users)
    .values({
      username: input.username,
      passwordHash,
      name: input.name,
      role: input.role,
      companyName: companyForCreate(ctx.actor, input.company_name),
      email: input.email ?? null,
      active: input.active ?? true,
    })
    .onConflictDoNothing({ target: users.username })
    .returning();
  if (!row) throw usernameTaken(input.username);
  return toUserView(row);
}

export async function createUser(ctx: UseCaseContext, input: CreateUserBody) {
  assertMayAssignRole(ctx, input.role);
  const user = await hashedUser(input);
  return ctx.transaction(async (tx) => {
    await assertUsernamesFree(tx, users, users.username, [input.username]);
    return insertUser(ctx, tx, user);
  });
}

/** All or nothing: one bad or duplicate row leaves the whole batch unwritten and names the row. */
export async function createUsersInBatch(ctx: UseCaseContext, input: { users: CreateUserBody[] }) {
  const seen = new Set<string>();
  for (const user of input.users) {
    assertMayAssignRole(ctx, user.role); // before hashing hundreds of passwords for a batch refused anyway
    const key = user.username.toLowerCase();
    if (seen.has(key)) throw new AppError('DUPLICATE', `批量数据中用户名 ${user.username} 重复`, { username: user.username });
    seen.add(key);
  }
  const hashed = await Promise.all(input.users.map(hashedUser));
  const created = await ctx.transaction(async (tx) => {
    await assertUsernamesFree(tx, users, users.username, input.users.map((user) => user.username));
    const rows = [];
    for (const user of hashed) rows.push(await insertUser(ctx, tx, user));
    return rows;
  });
  return { created, count: created.length };
}

const PATCHABLE_USER_FIELDS = ['name', 'role', 'company_name', 'email', 'active', 'password'] as const;

/** A patch of unknown fields only is 400; one that changes nothing writes nothing (no audit record). */
export async function updateUser(ctx: UseCaseContext, userId: number, input: UpdateUserBody) {
  requirePatchedField(input, PATCHABLE_USER_FIELDS);
  assertMayAssignRole(ctx, input.role);
  const companyName = patchedCompany(input.company_name);
  const passwordHash = input.password ? await hashPassword(input.password) : undefined;
  return ctx.transaction(async (tx) => {
    const scope = companyCondition(ctx.scope(), users.companyName);
    const [current] = await tx.select().from(users).where(and(eq(users.id, userId), scope)).for('update');
    if (!current) throw notFound('用户');
    if (current.role === 'SUPER_ADMIN' && !isSuperAdmin(ctx.actor)) throw forbidden('不能修改超级管理员账号');
    refuseSelfDeactivation(ctx.actor, current.id, input.active);
    if (leavesSuperAdmins(current, input)) await assertAnotherActiveSuperAdmin(tx, current.id);
    // sending the stored company back (a whole user form) changes nothing and is no company change
    if (companyName !== undefined && companyName !== current.companyName && !isCrossDomain(ctx.actor)) {
      throw forbidden('只有跨公司账号可以修改用户所属公司');
    }
    const changes = changedUserColumns(current, {
      name: input.name,
      role: input.role,
      companyName,
      email: input.email,
      active: input.active,
    });
    if (Object.keys(changes).length === 0 && passwordHash === undefined) return toUserView(current);
    const [row] = await tx
      .update(users)
      .set({ ...changes, passwordHash, updatedAt: ctx.now })
      .where(eq(users.id, userId))
      .returning();
    return toUserView(row!);
  });
}

/** Whether the patch takes an active SUPER_ADMIN out of that group (another role, or deactivated). */
function leavesSuperAdmins(current: { role: string; active: boolean }, input: UpdateUserBody): boolean {
  if (current.role !== 'SUPER_ADMIN' || !current.active) return false;
  return (input.role !== undefined && input.role !== 'SUPER_ADMIN') || input.active === false;
}

/**
 * Only a SUPER_ADMIN manages SUPER_ADMINs and the first one is made only on an empty user table, so losing
 * the last active one would lock user management for good. Concurrent patches take turns on one advisory
 * lock, so two SUPER_ADMINs demoting each other at once cannot both pass the count.
 */
async function assertAnotherActiveSuperAdmin(tx: Tx, userId: number) {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext('users:last_super_admin'))`);
  const [other] = await tx
    .select({ id: users.id })
    .from(users)
    .where(and(eq(users.role, 'SUPER_ADMIN'), eq(users.active, true), ne(users.id, userId)))
    .limit(1);
  if (!other) throw new AppError('STATUS_NOT_ALLOWED', '至少需要保留一个在职的超级管理员');
}

/** A company named on PATCH, trimmed as on create (contract §8: company names compare exactly); blank is 400. */
function patchedCompany(requested: string | undefined): string | undefined {
  if (requested === undefined) return undefined;
  const company = requested.trim();
  if (!company) throw validationFailed('company_name 不能为空', { field: 'company_name' });
  return company;
}

export async function listActiveUsers(ctx: UseCaseContext, requestedCompany?: string) {
  const rows = await ctx.read((q) =>
    q
      .select({ id: users.id, name: users.name })
      .from(users)
      .where(and(eq(users.active, true), companyCondition(ctx.scope(requestedCompany), users.companyName)))
      .orderBy(asc(users.id)),
  );
  return rows;
}
