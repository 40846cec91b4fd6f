import { and, count, desc, eq, isNotNull, isNull, sql, type SQL } from 'drizzle-orm';
import { AppError, keywordMatch, notFound, pageOf, pagingOf, timeRangeCondition, type UseCaseContext } from '@wms/platform';
import { mailOutbox, type MailOutboxRow } from '../../db/schema/index.js';
import { deliverMail } from './mailer.js';
import type { MailListQuery, MailStatus, MailView } from './mail-outbox-schemas.js';

/** The status of a mail row: sent once sent_at is set, failed while an error is recorded, else pending. */
const STATUS_CONDITIONS: Record<MailStatus, SQL> = {
  sent: isNotNull(mailOutbox.sentAt),
  failed: and(isNull(mailOutbox.sentAt), isNotNull(mailOutbox.error))!,
  pending: and(isNull(mailOutbox.sentAt), isNull(mailOutbox.error))!,
};

const statusOf = (row: MailOutboxRow): MailStatus => (row.sentAt ? 'sent' : row.error !== null ? 'failed' : 'pending');

/** GET /mail/outbox: every mail the service wrote, newest first (SUPER_ADMIN). */
export async function listMails(ctx: UseCaseContext, query: MailListQuery) {
  const paging = pagingOf(query);
  const where = and(
    query.status ? STATUS_CONDITIONS[query.status] : undefined,
    query.kind ? eq(mailOutbox.kind, query.kind) : undefined,
    keywordMatch(query.keyword, mailOutbox.subject, sql`array_to_string(${mailOutbox.toAddresses}, ' ')`),
    timeRangeCondition(mailOutbox.createdAt, query.start_date, query.end_date),
  );
  return ctx.read(async (q) => {
    const rows = await q.select().from(mailOutbox).where(where).orderBy(desc(mailOutbox.id)).limit(paging.limit).offset(paging.offset);
    const [total] = await q.select({ n: count() }).from(mailOutbox).where(where);
    return pageOf(rows.map(toMailView), total?.n ?? 0, paging);
  });
}

/**
 * POST /mail/outbox/{id}/retry: a failed mail loses its error (pending again) and is handed to the SMTP
 * server once more after the commit; the answer is the pending row, the outcome lands on it later.
 * Only a failed mail qualifies (400 STATUS_NOT_ALLOWED with `status`); of two concurrent retries one wins.
 */
export async function retryMail(ctx: UseCaseContext, id: number): Promise<MailView> {
  const row = await ctx.transaction(async (tx) => {
    const [current] = await tx.select().from(mailOutbox).where(eq(mailOutbox.id, id));
    if (!current) throw notFound(`邮件 ${id}`);
    const [updated] = await tx
      .update(mailOutbox)
      .set({ error: null })
      .where(and(eq(mailOutbox.id, id), STATUS_CONDITIONS.failed))
      .returning();
    if (!updated) {
      const status = statusOf(current);
      throw new AppError('STATUS_NOT_ALLOWED', `只有发送失败 (failed) 的邮件可以重试，该邮件为 ${status}`, { status });
    }
    ctx.afterCommit(() => deliverMail(ctx, id, { to: updated.toAddresses, subject: updated.subject, body: updated.body }));
    return updated;
  });
  return toMailView(row);
}

export function toMailView(row: MailOutboxRow): MailView {
  return {
    id: row.id,
    kind: row.kind,
    status: statusOf(row),
    to_addresses: row.toAddresses,
    subject: row.subject,
    body: row.body,
    attempts: row.attempts,
    error: row.error,
    created_at: row.createdAt.toISOString(),
    sent_at: row.sentAt?.toISOString() ?? null,
  };
}
