import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';

/** One request the fake tracking service received. */
export interface ReceivedCall {
  method: string;
  path: string;
  apiKey: string | undefined;
  body: Record<string, unknown> | null;
  at: number;
}

/** What the fake answers with: an HTTP status (with a JSON body), or 'drop' to cut the connection. */
export type FakeAnswer = number | 'drop';

/**
 * A tiny HTTP server standing in for the tracking service, for the failure modes the real one does not
 * produce on demand. Answers are taken from a script in order; when the script is empty it answers
 * `fallback` (200 { ok: true, matched: true } by default).
 */
export interface FakeTracking {
  url: string;
  calls: ReceivedCall[];
  script(...answers: FakeAnswer[]): void;
  fallback: FakeAnswer;
  /** Delay before answering (ms). */
  delayMs: number;
  close(): Promise<void>;
}

export async function startFakeTracking(): Promise<FakeTracking> {
  const queue: FakeAnswer[] = [];
  const fake: FakeTracking = {
    url: '',
    calls: [],
    script: (...answers) => queue.push(...answers),
    fallback: 200,
    delayMs: 0,
    close: () => new Promise<void>((resolve) => {
      server.closeAllConnections();
      server.close(() => resolve());
    }),
  };
  const server: Server = createServer((request, response) => {
    void readBody(request).then(async (raw) => {
      fake.calls.push({
        method: request.method ?? '',
        path: request.url ?? '',
        apiKey: request.headers['x-api-key'] as string | undefined,
        body: raw ? (JSON.parse(raw) as Record<string, unknown>) : null,
        at: Date.now(),
      });
      if (fake.delayMs) await new Promise((resolve) => setTimeout(resolve, fake.delayMs));
      const answer = queue.length ? queue.shift()! : fake.fallback;
      if (answer === 'drop') {
        request.socket.destroy();
        return;
      }
      response.writeHead(answer, { 'content-type': 'application/json' });
      response.end(JSON.stringify(answer < 300 ? { ok: true, matched: true } : { msg: `fake ${answer}`, code: 'FAKE' }));
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  fake.url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return fake;
}

async function readBody(request: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks).toString('utf8');
}
