import { sql } from 'drizzle-orm';
import { boolean, check, pgTable, serial, text, timestamp, uniqueIndex } from 'drizzle-orm/pg-core';

/** The tracking service authorises by role alone (contract §6); there is no grants table. */
export const TRACKING_ROLES = ['SUPER_ADMIN', 'SUPERVISOR', 'ENGINEER', 'OPERATOR'] as const;
export type TrackingRole = (typeof TRACKING_ROLES)[number];

/**
 * Accounts of this instance. `department` decides who may log in: only accounts of ORG_DEPARTMENT
 * (compared trimmed and upper-cased) are served, whatever else the table holds.
 */
export const users = pgTable(
  'users',
  {
    id: serial('id').primaryKey(),
    username: text('username').notNull(),
    passwordHash: text('password_hash').notNull(),
    name: text('name').notNull(),
    role: text('role').$type<TrackingRole>().notNull(),
    department: text('department').notNull(),
    active: boolean('active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [
    uniqueIndex('users_username_unique').on(t.username),
    check('users_role_valid', sql`${t.role} in ('SUPER_ADMIN', 'SUPERVISOR', 'ENGINEER', 'OPERATOR')`),
  ],
);

export type UserRow = typeof users.$inferSelect;
