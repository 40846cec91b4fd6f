import { count } from 'drizzle-orm';
import { hashPassword, randomPassword, type Database } from '@wms/platform';
import { rolePermissions, users } from './db/schema/index.js';
import { DEFAULT_ROLE_GRANTS } from './modules/identity/permission-catalog.js';

export interface BootstrapResult {
  /** Set when this start created the first SUPER_ADMIN; the password is shown once. */
  admin?: { username: string; password: string; generated: boolean };
}

/** First start: the default role grants (contract §3) and the first SUPER_ADMIN (contract §1). */
export async function bootstrapInventory(
  database: Database,
  admin: { username: string; password?: string },
): Promise<BootstrapResult> {
  const password = admin.password ?? randomPassword();
  const passwordHash = await hashPassword(password);
  return database.transaction({ actor: 'system' }, async (tx) => {
    const [grants] = await tx.select({ n: count() }).from(rolePermissions);
    if (!grants?.n) {
      const rows = Object.entries(DEFAULT_ROLE_GRANTS).flatMap(([role, codes]) =>
        codes.map((code) => ({ roleCode: role, permissionCode: code })),
      );
      await tx.insert(rolePermissions).values(rows);
    }
    const [existing] = await tx.select({ n: count() }).from(users);
    if (existing?.n) return {};
    await tx.insert(users).values({ username: admin.username, passwordHash, name: '系统管理员', role: 'SUPER_ADMIN', companyName: null });
    return { admin: { username: admin.username, password, generated: !admin.password } };
  });
}
