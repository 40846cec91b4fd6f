import { eq } from 'drizzle-orm';
import { unauthenticated, verifyPassword, type UseCaseContext } from '@wms/platform';
import type { TrackingDeps } from '../../app-types.js';
import { users } from '../../db/schema/index.js';
import { toScopeView } from './data-scope.js';
import { normalizeDepartment } from './department.js';
import { toUserView } from './user-mapper.js';
import type { LoginBody } from './schemas.js';

/** Spends the same scrypt time for unknown users, so response time does not reveal which usernames exist. */
const DUMMY_HASH = 'scrypt$00000000000000000000000000000000$' + '00'.repeat(64);

/** Only active accounts of ORG_DEPARTMENT get a token (spec §5); every refusal is 401. */
export async function login(deps: Pick<TrackingDeps, 'database' | 'tokens' | 'config'>, input: LoginBody) {
  const [row] = await deps.database.read((q) => q.select().from(users).where(eq(users.username, input.username)));
  const passwordOk = await verifyPassword(input.password, row?.passwordHash ?? DUMMY_HASH);
  if (!row || !passwordOk) throw unauthenticated('用户名或密码错误');
  const department = normalizeDepartment(row.department);
  if (department !== deps.config.orgDepartment) throw unauthenticated('该账号不属于本部门，不能登录');
  if (!row.active) throw unauthenticated('账号已停用');
  const token = await deps.tokens.sign({ sub: String(row.id), role: row.role, company_name: department, name: row.name });
  return { token, user: toUserView(row) };
}

export async function currentUser(ctx: UseCaseContext, deps: Pick<TrackingDeps, 'dataScope'>) {
  const [row] = await ctx.read((q) => q.select().from(users).where(eq(users.id, ctx.actor.id)));
  if (!row) throw unauthenticated();
  const scope = await deps.dataScope.scopeOf(ctx);
  return { ...toUserView(row), scope: toScopeView(scope) };
}
