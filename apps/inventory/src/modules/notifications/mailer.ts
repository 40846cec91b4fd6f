import { eq, sql } from 'drizzle-orm';
import type { UseCaseContext } from '@wms/platform';
import type { InventoryDeps, InventoryFastify } from '../../app-types.js';
import { mailOutbox, type MailKind } from '../../db/schema/index.js';
import { smtpTransport, type MailTransport } from './mail-transport.js';

export interface OutgoingMail {
  kind: MailKind;
  to: readonly string[];
  subject: string;
  body: string;
}

/**
 * The SMTP transport of the running service, or null when SMTP_URL is not set (contract §1: then the
 * mail_outbox row is the delivery). One per process: the service runs one app.
 */
let transport: MailTransport | null = null;

/** Chooses the transport from the configuration and closes it with the app. */
export function installMailer(app: InventoryFastify, deps: InventoryDeps): void {
  transport = deps.config.smtpUrl ? smtpTransport(deps.config.smtpUrl) : null;
  const installed = transport;
  app.addHook('onClose', async () => {
    installed?.close();
    if (transport === installed) transport = null;
  });
}

/**
 * Sends one mail. Call it after commit, never inside a business transaction (spec 6.2). Every mail is
 * recorded in mail_outbox; with SMTP the row then gets sent_at or the error. Never throws: a mail that
 * cannot go out is an error on its row (and in the log), not a failed request.
 */
export async function sendMail(ctx: UseCaseContext, mail: OutgoingMail): Promise<void> {
  try {
    const [row] = await ctx.transaction((tx) =>
      tx
        .insert(mailOutbox)
        .values({ kind: mail.kind, toAddresses: [...mail.to], subject: mail.subject, body: mail.body })
        .returning({ id: mailOutbox.id }),
    );
    if (row) await deliverMail(ctx, row.id, mail);
  } catch (err) {
    console.error('[mail] 邮件记录失败', err);
  }
}

/**
 * Hands a recorded mail to the SMTP server (no-op without SMTP_URL: the row is the delivery) and
 * records the outcome: sent_at, or the error; attempts counts every hand-over. Never throws.
 */
export async function deliverMail(ctx: UseCaseContext, id: number, mail: Pick<OutgoingMail, 'to' | 'subject' | 'body'>): Promise<void> {
  const current = transport;
  if (!current) return;
  try {
    const outcome = await current.send(mail).then(
      () => ({ sentAt: new Date(), error: null }),
      (err: unknown) => ({ sentAt: null, error: err instanceof Error ? err.message : String(err) }),
    );
    await ctx.transaction((tx) =>
      tx.update(mailOutbox).set({ ...outcome, attempts: sql`${mailOutbox.attempts} + 1` }).where(eq(mailOutbox.id, id)),
    );
    if (outcome.error) console.error(`[mail] 邮件 ${id} 发送失败: ${outcome.error}`);
  } catch (err) {
    console.error(`[mail] 邮件 ${id} 发送结果记录失败`, err);
  }
}
