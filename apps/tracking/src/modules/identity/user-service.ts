import { and, asc, count, eq } from 'drizzle-orm';
import {
  AppError,
  assertUsernamesFree,
  changedUserColumns,
  hashPassword,
  notFound,
  pageOf,
  pagingOf,
  refuseSelfDeactivation,
  requirePatchedField,
  timeRangeCondition,
  userListConditions,
  usernameTaken,
  validationFailed,
  type UseCaseContext,
} from '@wms/platform';
import { users } from '../../db/schema/index.js';
import { inDepartment, normalizeDepartment } from './department.js';
import { toUserView } from './user-mapper.js';
import type { CreateUserBody, UpdateUserBody, UserListQuery } from './schemas.js';

/** The department of the request: the actor loader admits only ORG_DEPARTMENT and names it here. */
function departmentOf(ctx: UseCaseContext): string {
  return ctx.actor.company ?? '';
}

export async function listUsers(ctx: UseCaseContext, query: UserListQuery) {
  const paging = pagingOf(query);
  const where = and(
    inDepartment(users.department, departmentOf(ctx)),
    ...userListConditions(users, query),
    timeRangeCondition(users.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q.select().from(users).where(where).orderBy(asc(users.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(users).where(where);
    return pageOf(rows.map(toUserView), total?.n ?? 0, paging);
  });
}

/** The account `userId` if it belongs to the department of the request; accounts of others are invisible. */
const departmentAccount = (ctx: UseCaseContext, userId: number) => and(eq(users.id, userId), inDepartment(users.department, departmentOf(ctx)));

/** GET /users/{id}: an account of this department; another department's is 404 like an unknown one. */
export async function getUser(ctx: UseCaseContext, userId: number) {
  const [row] = await ctx.read((q) =>
    q.select().from(users).where(departmentAccount(ctx, userId)),
  );
  if (!row) throw notFound('用户');
  return toUserView(row);
}

/**
 * A new account always belongs to this instance's department, whatever the caller sends. Usernames that
 * differ only in case are one name (the login throttle counts them as one), as in the inventory service.
 */
export async function createUser(ctx: UseCaseContext, input: CreateUserBody) {
  const passwordHash = await hashPassword(input.password);
  return ctx.transaction(async (tx) => {
    await assertUsernamesFree(tx, users, users.username, [input.username]);
    const [row] = await tx
      .insert(users)
      .values({
        username: input.username,
        passwordHash,
        name: input.name,
        role: input.role,
        department: departmentOf(ctx),
        active: input.active ?? true,
      })
      .onConflictDoNothing({ target: users.username })
      .returning();
    if (!row) throw usernameTaken(input.username);
    return toUserView(row);
  });
}

/**
 * Accounts of other departments are invisible here (404). Nobody can deactivate their own account or
 * change their own role, so the last SUPER_ADMIN cannot lock the department out. A body of unknown fields
 * only is as empty as `{}`; values equal to the stored ones write nothing (no audit record). An account
 * cannot be moved to another department from here (it would leave this instance): `department` may only
 * name this one.
 */
export async function updateUser(ctx: UseCaseContext, userId: number, input: UpdateUserBody) {
  requirePatchedField(input, ['name', 'role', 'active', 'password', 'department']);
  if (input.department !== undefined && normalizeDepartment(input.department) !== departmentOf(ctx)) {
    throw validationFailed(`账号只能属于本部门 ${departmentOf(ctx)}`, { field: 'department' });
  }
  const passwordHash = input.password ? await hashPassword(input.password) : undefined;
  return ctx.transaction(async (tx) => {
    const [current] = await tx
      .select()
      .from(users)
      .where(departmentAccount(ctx, userId))
      .for('update');
    if (!current) throw notFound('用户');
    refuseSelfDeactivation(ctx.actor, current.id, input.active);
    if (current.id === ctx.actor.id && input.role !== undefined && input.role !== current.role) {
      throw new AppError('STATUS_NOT_ALLOWED', '不能修改自己的角色');
    }
    const changes = changedUserColumns(current, { name: input.name, role: input.role, active: input.active });
    if (Object.keys(changes).length === 0 && passwordHash === undefined) return toUserView(current);
    const [row] = await tx
      .update(users)
      .set({ ...changes, passwordHash, updatedAt: ctx.now })
      .where(eq(users.id, userId))
      .returning();
    return toUserView(row!);
  });
}
