import { sql, type SQL } from 'drizzle-orm';
import { check, index, integer, jsonb, serial, text, timestamp, type AnyPgColumn } from 'drizzle-orm/pg-core';
import { users } from './identity.js';
import type { ReservationLine } from '../../modules/reservation/lines.js';

export const CLOSE_REASONS = ['closed', 'withdrawn'] as const;
export type CloseReason = (typeof CLOSE_REASONS)[number];

const at = (name: string) => timestamp(name, { withTimezone: true });

/**
 * The columns every approval request shares (outbound, borrow): who applied, for which company,
 * the status, the allocated lines (a line's reservation is recorded in items_json, spec 2.4) and the
 * trail of approval, rejection and closing. Each table adds the columns of its own flow.
 */
export function requestColumns<Status extends number>(bizType: string) {
  return {
    id: serial('id').primaryKey(),
    bizType: text('biz_type').notNull().default(bizType),
    applicantId: integer('applicant_id')
      .notNull()
      .references(() => users.id, { onDelete: 'restrict' }),
    companyName: text('company_name').notNull(),
    status: integer('status').notNull().default(0).$type<Status>(),
    itemsJson: jsonb('items_json').notNull().$type<ReservationLine[]>(),
    remark: text('remark'),
    rejectReason: text('reject_reason'),
    closeReason: text('close_reason').$type<CloseReason>(),
    approverId: integer('approver_id').references(() => users.id, { onDelete: 'restrict' }),
    approvedAt: at('approved_at'),
    rejectedAt: at('rejected_at'),
    closerId: integer('closer_id').references(() => users.id, { onDelete: 'restrict' }),
    closedAt: at('closed_at'),
    createdAt: at('created_at').notNull().defaultNow(),
    updatedAt: at('updated_at').notNull().defaultNow(),
  };
}

interface RequestTableColumns {
  bizType: AnyPgColumn;
  applicantId: AnyPgColumn;
  companyName: AnyPgColumn;
  status: AnyPgColumn;
  closeReason: AnyPgColumn;
}

/** Indexes and checks of a request table: status 0–4, its biz_type, close_reason exactly on status 4. */
export function requestConstraints(table: string, bizType: string, t: RequestTableColumns) {
  const closeReasonRule: SQL = sql`(${t.status} = 4 AND ${t.closeReason} IN ('closed', 'withdrawn')) OR (${t.status} <> 4 AND ${t.closeReason} IS NULL)`;
  return [
    index(`${table}_company_status_idx`).on(t.companyName, t.status),
    index(`${table}_applicant_idx`).on(t.applicantId),
    check(`${table}_status`, sql`${t.status} IN (0, 1, 2, 3, 4)`),
    check(`${table}_biz_type`, sql`${t.bizType} = ${sql.raw(`'${bizType}'`)}`),
    check(`${table}_close_reason`, closeReasonRule),
  ];
}
