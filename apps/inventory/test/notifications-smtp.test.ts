import { createServer, type AddressInfo, type Server } from 'node:net';
import { sql } from 'drizzle-orm';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createMaterial, queryRows, stockIn, type MaterialJson } from './fixtures.js';
import { buildTestInventory, type TestInventory } from './helpers.js';
import { outboundWorld, type OutboundWorld } from './outbound-fixtures.js';
import { eventually, setEmail, shipFromRow } from './returns-fixtures.js';

interface ReceivedMail {
  to: string[];
  data: string;
}

/** Just enough of an SMTP server to accept mail without TLS or authentication. */
function fakeSmtpServer(received: ReceivedMail[]): Server {
  return createServer((socket) => {
    let buffer = '';
    let inData = false;
    let current: ReceivedMail = { to: [], data: '' };
    socket.write('220 fake ESMTP\r\n');
    socket.on('data', (chunk) => {
      buffer += chunk.toString('utf8');
      for (let end = buffer.indexOf('\r\n'); end >= 0; end = buffer.indexOf('\r\n')) {
        const line = buffer.slice(0, end);
        buffer = buffer.slice(end + 2);
        if (inData) {
          if (line === '.') {
            inData = false;
            received.push(current);
            current = { to: [], data: '' };
            socket.write('250 OK queued\r\n');
          } else {
            current.data += `${line}\n`;
          }
          continue;
        }
        const command = line.slice(0, 4).toUpperCase();
        if (command === 'EHLO' || command === 'HELO') socket.write('250 fake\r\n');
        else if (command === 'RCPT') {
          current.to.push(/<([^>]*)>/.exec(line)?.[1] ?? '');
          socket.write('250 OK\r\n');
        } else if (command === 'DATA') {
          inData = true;
          socket.write('354 go ahead\r\n');
        } else if (command === 'QUIT') {
          socket.end('221 bye\r\n');
        } else socket.write('250 OK\r\n');
      }
    });
    socket.on('error', () => undefined);
  });
}

let server: Server;
const received: ReceivedMail[] = [];
let t: TestInventory;
let w: OutboundWorld;

beforeAll(async () => {
  server = fakeSmtpServer(received);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  t = await buildTestInventory({ config: { smtpUrl: `smtp://127.0.0.1:${port}` } });
  w = await outboundWorld(t);
  const purchaser = await t.user('WAREHOUSE_MGR', 'ALPHA');
  await setEmail(t, purchaser, 'buyer@alpha.example');
});
afterAll(async () => {
  await t.close();
  server.close();
});

const mailsAbout = (material: MaterialJson) =>
  queryRows<{ to_addresses: string[]; sent_at: string | null; error: string | null }>(
    t,
    sql`select to_addresses, sent_at, error from mail_outbox where body like ${`%${material.name}%`} order by id`,
  );

describe('low-stock mail over SMTP (SMTP_URL set)', () => {
  it('hands the mail to the SMTP server and records sent_at', async () => {
    const material = await createMaterial(t, w.mgr.token, { yellow_threshold: 5 });
    const row = await stockIn(t, w.inbound.token, { base_id: material.id, in_quantity: 6 });
    await shipFromRow(w, row, 2);

    const [mail] = await eventually(() => mailsAbout(material), (mails) => mails[0]?.sent_at != null || mails[0]?.error != null);
    expect(mail).toMatchObject({ to_addresses: ['buyer@alpha.example'], error: null });
    expect(mail!.sent_at).not.toBeNull();
    expect(received).toHaveLength(1);
    expect(received[0]!.to).toEqual(['buyer@alpha.example']);
    expect(received[0]!.data).toMatch(/^Subject: /m);
  });

  it('records the error when the server cannot be reached, and the outbound still succeeds', async () => {
    await new Promise<void>((resolve) => server.close(() => resolve()));
    const material = await createMaterial(t, w.mgr.token, { red_threshold: 1 });
    const row = await stockIn(t, w.inbound.token, { base_id: material.id, in_quantity: 3 });

    const line = await shipFromRow(w, row, 2); // throws unless the outbound answered 201
    expect(line.quantity).toBe(2);

    const [mail] = await eventually(() => mailsAbout(material), (mails) => mails[0]?.error != null, 10_000);
    expect(mail).toMatchObject({ to_addresses: ['buyer@alpha.example'], sent_at: null });
    expect(mail!.error).toBeTruthy();
  });
});
