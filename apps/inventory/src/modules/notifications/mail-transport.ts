import nodemailer from 'nodemailer';
import type { OutgoingMail } from './mailer.js';

/** Hands a mail to an SMTP server; resolves once the server accepted it. */
export interface MailTransport {
  send(mail: Pick<OutgoingMail, 'to' | 'subject' | 'body'>): Promise<void>;
  close(): void;
}

/** The sender address: the SMTP account when the url names one that is an address, else no-reply@<host>. */
export function senderOf(smtpUrl: string): string {
  const url = new URL(smtpUrl);
  const user = decodeURIComponent(url.username);
  return `库存系统 <${user.includes('@') ? user : `no-reply@${url.hostname}`}>`;
}

export function smtpTransport(smtpUrl: string): MailTransport {
  const transporter = nodemailer.createTransport(smtpUrl, { from: senderOf(smtpUrl) });
  return {
    send: async (mail) => {
      await transporter.sendMail({ to: [...mail.to], subject: mail.subject, text: mail.body });
    },
    close: () => transporter.close(),
  };
}
