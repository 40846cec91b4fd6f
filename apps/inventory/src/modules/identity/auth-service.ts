import { eq } from 'drizzle-orm';
import { effectivePermissions, unauthenticated, verifyPassword, type Database, type TokenService, type UseCaseContext } from '@wms/platform';
import { users } from '../../db/schema/index.js';
import { PERMISSION_CATALOG } from './permission-catalog.js';
import { toUserView } from './user-mapper.js';
import type { LoginBody } from './schemas.js';

/** Spends the same scrypt time for unknown users, so response time does not reveal which usernames exist. */
const DUMMY_HASH = 'scrypt$00000000000000000000000000000000$' + '00'.repeat(64);

export async function login(database: Database, tokens: TokenService, input: LoginBody) {
  const [row] = await database.read((q) => q.select().from(users).where(eq(users.username, input.username)));
  const passwordOk = await verifyPassword(input.password, row?.passwordHash ?? DUMMY_HASH);
  if (!row || !passwordOk) throw unauthenticated('用户名或密码错误');
  if (!row.active) throw unauthenticated('账号已停用');
  const token = await tokens.sign({ sub: String(row.id), role: row.role, company_name: row.companyName, name: row.name });
  return { token, user: toUserView(row) };
}

export async function currentUser(ctx: UseCaseContext) {
  const [row] = await ctx.read((q) => q.select().from(users).where(eq(users.id, ctx.actor.id)));
  if (!row) throw unauthenticated();
  return { ...toUserView(row), permissions: effectivePermissions(ctx.actor, PERMISSION_CATALOG) };
}
