import { count } from 'drizzle-orm';
import { hashPassword, randomPassword, type Database } from '@wms/platform';
import { users } from './db/schema/index.js';

export interface BootstrapResult {
  /** Set when this start created the first SUPER_ADMIN; the password is shown once. */
  admin?: { username: string; password: string; generated: boolean };
}

/** First start: the first SUPER_ADMIN of ORG_DEPARTMENT, when the user table is empty (contract §6). */
export async function bootstrapTracking(
  database: Database,
  admin: { username: string; password?: string; department: string },
): Promise<BootstrapResult> {
  const password = admin.password ?? randomPassword();
  const passwordHash = await hashPassword(password);
  return database.transaction({ actor: 'system', company: admin.department }, async (tx) => {
    const [existing] = await tx.select({ n: count() }).from(users);
    if (existing?.n) return {};
    await tx.insert(users).values({ username: admin.username, passwordHash, name: '系统管理员', role: 'SUPER_ADMIN', department: admin.department });
    return { admin: { username: admin.username, password, generated: !admin.password } };
  });
}
