import { createServer, type AddressInfo, type Server } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMaterial } from './fixtures.js';
import { buildTestInventory, type TestInventory } from './helpers.js';
import { purchaseCast, submitOk, type PurchaseCast } from './purchase-fixtures.js';
import { eventually, setEmail } from './returns-fixtures.js';

/** An SMTP server that accepts mail, or refuses every recipient while `refusing` is set. */
function fakeSmtpServer(state: { refusing: boolean; received: string[] }): Server {
  return createServer((socket) => {
    let buffer = '';
    let inData = false;
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            state.received.push('mail');
            socket.write('250 OK queued\r\n');
          }
          continue;
        }
        const command = line.slice(0, 4).toUpperCase();
        if (command === 'EHLO' || command === 'HELO') socket.write('250 fake\r\n');
        else if (command === 'RCPT') socket.write(state.refusing ? '550 mailbox unavailable\r\n' : '250 OK\r\n');
        else if (command === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (command === 'QUIT') socket.end('221 bye\r\n');
        else socket.write('250 OK\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
}

const OUTBOX = '/api/v1/mail/outbox';
const smtp = { refusing: true, received: [] as string[] };
let server: Server;
let t: TestInventory;
let c: PurchaseCast;

beforeAll(async () => {
  server = fakeSmtpServer(smtp);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  t = await buildTestInventory({ config: { smtpUrl: `smtp://127.0.0.1:${port}` } });
  c = await purchaseCast(t);
  await setEmail(t, c.mgr, 'buyer@alpha.example');
});
afterAll(async () => {
  await t.close();
  server.close();
});

interface MailJson {
  id: number;
  kind: string;
  status: string;
  to_addresses: string[];
  subject: string;
  attempts: number;
  error: string | null;
  sent_at: string | null;
}

const outbox = async (query = '') => {
  const response = await t.request('GET', `${OUTBOX}?limit=200${query}`, { token: t.adminToken });
  expect(response.statusCode, response.body).toBe(200);
  return response.json() as { items: MailJson[]; total: number };
};

describe('mail outbox', () => {
  it('shows a failed approval mail to SUPER_ADMIN and sends it again on retry', async () => {
    const material = await createMaterial(t, c.mgr.token, { name: '发件箱物料' });
    const batch = await submitOk(t, c.sales.token, [{ base_id: material.id, quantity: 1 }]);
    const failed = await eventually(
      () => outbox('&status=failed&kind=purchase_submitted'),
      (page) => page.items.some((mail) => mail.subject.includes(batch.batch_key)),
      10_000,
    );
    const mail = failed.items.find((item) => item.subject.includes(batch.batch_key))!;
    expect(mail).toMatchObject({ kind: 'purchase_submitted', status: 'failed', to_addresses: ['buyer@alpha.example'], attempts: 1, sent_at: null });
    expect(mail.error).toBeTruthy();
    expect((await outbox('&status=sent')).items.map((item) => item.id)).not.toContain(mail.id);
    // keyword on the subject or a recipient, dates on when the mail was written (contract §8)
    expect((await outbox(`&keyword=${encodeURIComponent(batch.batch_key.toLowerCase())}`)).items.map((item) => item.id)).toContain(mail.id);
    expect((await outbox('&keyword=BUYER@ALPHA')).items.map((item) => item.id)).toContain(mail.id);
    expect((await outbox('&keyword=nobody@nowhere')).items).toEqual([]);
    expect((await outbox('&end_date=2020-01-01')).items).toEqual([]);
    expect((await outbox('&start_date=2020-01-01')).items.map((item) => item.id)).toContain(mail.id);

    smtp.refusing = false;
    const retried = await t.request('POST', `${OUTBOX}/${mail.id}/retry`, { token: t.adminToken });
    expect(retried.statusCode).toBe(200);
    expect(retried.json()).toMatchObject({ id: mail.id, status: 'pending', error: null });
    const sent = await eventually(() => outbox('&status=sent'), (page) => page.items.some((item) => item.id === mail.id), 10_000);
    expect(sent.items.find((item) => item.id === mail.id)).toMatchObject({ status: 'sent', attempts: 2, error: null });
    expect(smtp.received.length).toBeGreaterThanOrEqual(1);

    const again = await t.request('POST', `${OUTBOX}/${mail.id}/retry`, { token: t.adminToken });
    expect(again.statusCode).toBe(400);
    expect(again.json()).toMatchObject({ code: 'STATUS_NOT_ALLOWED', status: 'sent' });
  });

  it('is for SUPER_ADMIN only; bad filters are 400 and unknown mails 404', async () => {
    for (const token of [c.mgr.token, c.sales.token]) {
      expect((await t.request('GET', OUTBOX, { token })).statusCode).toBe(403);
      expect((await t.request('POST', `${OUTBOX}/1/retry`, { token })).statusCode).toBe(403);
    }
    expect((await t.request('GET', `${OUTBOX}?status=lost`, { token: t.adminToken })).statusCode).toBe(400);
    expect((await t.request('GET', `${OUTBOX}?kind=spam`, { token: t.adminToken })).statusCode).toBe(400);
    const badDate = await t.request('GET', `${OUTBOX}?start_date=2025-02-30`, { token: t.adminToken });
    expect(badDate.statusCode).toBe(400);
    expect(badDate.json()).toMatchObject({ code: 'VALIDATION_FAILED', field: 'start_date' });
    expect((await t.request('POST', `${OUTBOX}/99999999/retry`, { token: t.adminToken })).statusCode).toBe(404);
  });
});
