import { bigint, boolean, pgTable, primaryKey, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    name: text('name').notNull(),
    role: text('role').notNull(),
    companyName: text('company_name'),
    email: text('email'),
    active: boolean('active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('users_username_unique').on(t.username)],
);

/** Grants per role, seeded with contract §3's defaults and editable through /permissions/role/<role>. */
export const rolePermissions = pgTable(
  'role_permissions',
  {
    roleCode: text('role_code').notNull(),
    permissionCode: text('permission_code').notNull(),
  },
  (t) => [primaryKey({ name: 'role_permissions_pk', columns: [t.roleCode, t.permissionCode] })],
);

/**
 * A counter per role, raised by a trigger on role_permissions (migration actor_versions) whenever the
 * role's grants change. With the user row's xmin it makes the account version that cached actors are
 * checked against, so a role change reaches every process on the next request.
 */
export const roleVersions = pgTable('role_versions', {
  roleCode: text('role_code').primaryKey(),
  version: bigint('version', { mode: 'number' }).notNull().default(1),
});

export type UserRow = typeof users.$inferSelect;
