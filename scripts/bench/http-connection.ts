/**
 * One keep-alive HTTP/1.1 connection of the load generator, one call at a time (a closed-loop client).
 *
 * Written on node:net rather than node:http or undici because the client shares the machine's two cores
 * with the service and PostgreSQL: per call it costs about a quarter of node:http's CPU and half of
 * undici's (docs/benchmarks.md, "The load generator's own CPU"), as pgbench, the baselines' client, is a
 * lean C program. It speaks only what the bench needs: a request with an optional JSON body, an answer
 * framed by Content-Length (Fastify frames every answer so); anything else fails the run loudly.
 */
import net from 'node:net';

export interface Answer {
  status: number;
  body: string;
}

const HEADER_END = Buffer.from('\r\n\r\n');
const CONTENT_LENGTH = /\r\ncontent-length:[ \t]*(\d+)/i;
const CHUNKED = /\r\ntransfer-encoding:[ \t]*chunked/i;
const CLOSE = /\r\nconnection:[ \t]*close/i;

export class HttpConnection {
  private socket: net.Socket | undefined;
  private received: Buffer = Buffer.alloc(0);
  private waiting: { resolve: (answer: Answer) => void; reject: (err: Error) => void } | undefined;

  constructor(
    private readonly host: string,
    private readonly port: number,
    private readonly authorization: string,
  ) {}

  /** Sends one call and resolves with its answer; the connection is (re)opened when needed. */
  send(method: string, path: string, body?: string): Promise<Answer> {
    if (this.waiting) return Promise.reject(new Error('HttpConnection: one call at a time'));
    const head =
      `${method} ${path} HTTP/1.1\r\nHost: ${this.host}:${this.port}\r\nAuthorization: ${this.authorization}\r\n` +
      (body === undefined ? '\r\n' : `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`);
    return new Promise((resolve, reject) => {
      this.waiting = { resolve, reject };
      this.open().write(head);
    });
  }

  close(): void {
    this.socket?.destroy();
    this.socket = undefined;
  }

  private open(): net.Socket {
    if (this.socket) return this.socket;
    const socket = net.connect(this.port, this.host);
    socket.setNoDelay(true);
    socket.on('data', (chunk: Buffer) => this.onData(chunk));
    // A socket given up already (closed after `Connection: close`) must not fail the next socket's call.
    socket.on('error', (err) => {
      if (this.socket === socket) this.fail(err);
    });
    socket.on('close', () => {
      if (this.socket !== socket) return;
      this.socket = undefined;
      this.fail(new Error('connection closed before the answer'));
    });
    this.received = Buffer.alloc(0);
    return (this.socket = socket);
  }

  private onData(chunk: Buffer): void {
    this.received = this.received.length === 0 ? chunk : Buffer.concat([this.received, chunk]);
    const headerEnd = this.received.indexOf(HEADER_END);
    if (headerEnd < 0) return;
    const head = this.received.toString('latin1', 0, headerEnd);
    const length = CONTENT_LENGTH.exec(head);
    if (!length || CHUNKED.test(head)) {
      this.fail(new Error(`answer not framed by Content-Length: ${head.split('\r\n')[0]}`));
      this.close();
      return;
    }
    const end = headerEnd + HEADER_END.length + Number(length[1]);
    if (this.received.length < end) return;
    const answer = { status: Number(head.slice(9, 12)), body: this.received.toString('utf8', headerEnd + HEADER_END.length, end) };
    this.received = this.received.subarray(end);
    if (CLOSE.test(head)) this.close();
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.resolve(answer);
  }

  private fail(err: Error): void {
    const waiting = this.waiting;
    this.waiting = undefined;
    waiting?.reject(err);
  }
}
