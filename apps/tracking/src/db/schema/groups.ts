import { sql } from 'drizzle-orm';
import { boolean, check, index, integer, pgTable, primaryKey, serial, text, timestamp, uniqueIndex, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { users } from './identity.js';

/**
 * Business groups, two levels: a top-level group (parent_id null) and its sub-groups. The service
 * keeps the depth; the database keeps a group from being its own parent.
 */
export const businessGroups = pgTable(
  'business_groups',
  {
    id: serial('id').primaryKey(),
    name: text('name').notNull(),
    parentId: integer('parent_id').references((): AnyPgColumn => businessGroups.id),
    active: boolean('active').notNull().default(true),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
    updatedAt: timestamp('updated_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [index('business_groups_parent_idx').on(t.parentId), check('business_groups_not_own_parent', sql`${t.parentId} is null or ${t.parentId} <> ${t.id}`)],
);

export type BusinessGroupRow = typeof businessGroups.$inferSelect;

/** The phases a group sees, one row each; a sub-group without rows inherits its parent's. */
export const businessGroupPhases = pgTable(
  'business_group_phases',
  {
    groupId: integer('group_id').notNull().references(() => businessGroups.id, { onDelete: 'cascade' }),
    phase: text('phase').notNull(),
  },
  (t) => [primaryKey({ columns: [t.groupId, t.phase] }), check('business_group_phases_valid', sql`${t.phase} in ('PRODUCTION', 'AFTER_SALES')`)],
);

/** One user once per group; a user may be in several groups; a group may have several leaders. */
export const businessGroupMembers = pgTable(
  'business_group_members',
  {
    id: serial('id').primaryKey(),
    groupId: integer('group_id').notNull().references(() => businessGroups.id),
    userId: integer('user_id').notNull().references(() => users.id, { onDelete: 'cascade' }),
    isLeader: boolean('is_leader').notNull().default(false),
    createdAt: timestamp('created_at', { withTimezone: true }).notNull().defaultNow(),
  },
  (t) => [uniqueIndex('business_group_members_unique').on(t.groupId, t.userId), index('business_group_members_user_idx').on(t.userId)],
);

export type BusinessGroupMemberRow = typeof businessGroupMembers.$inferSelect;
