import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpConnection } from '../bench/http-connection.js';

/** The bench's load generator client against a plain node:http server that answers as told by the path. */
describe('bench HttpConnection', () => {
  const sockets = new Set<unknown>();
  let port = 0;
  const server = http.createServer((request, response) => {
    sockets.add(request.socket);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const echo = JSON.stringify({
        method: request.method,
        path: request.url,
        authorization: request.headers.authorization,
        body: Buffer.concat(chunks).toString('utf8'),
        note: '中文 answer',
      });
      if (request.url === '/chunked') {
        response.writeHead(200, { 'content-type': 'application/json' });
        response.write(echo.slice(0, 10));
        response.end(echo.slice(10));
        return;
      }
      if (request.url === '/hang-up') {
        request.socket.destroy();
        return;
      }
      const headers: http.OutgoingHttpHeaders = { 'content-type': 'application/json', 'content-length': Buffer.byteLength(echo) };
      if (request.url === '/close') headers.connection = 'close';
      response.writeHead(request.url === '/missing' ? 404 : 200, headers);
      // the head and the body in separate packets, the body in two: the answer is read whole anyway
      response.flushHeaders();
      const bytes = Buffer.from(echo);
      response.write(bytes.subarray(0, 7));
      setTimeout(() => response.end(bytes.subarray(7)), 5);
    });
  });

  beforeAll(async () => {
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  });
  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  });

  it('sends the call with its token and JSON body and reads the whole answer, keeping the connection', async () => {
    const connection = new HttpConnection('127.0.0.1', port, 'Bearer t0k');
    const first = await connection.send('POST', '/api/v1/outbound/request', JSON.stringify({ remark: '急件' }));
    const second = await connection.send('GET', '/missing');
    connection.close();

    expect(first.status).toBe(200);
    expect(JSON.parse(first.body)).toEqual({
      method: 'POST',
      path: '/api/v1/outbound/request',
      authorization: 'Bearer t0k',
      body: '{"remark":"急件"}',
      note: '中文 answer',
    });
    expect(second.status).toBe(404);
    expect(JSON.parse(second.body)).toMatchObject({ method: 'GET', path: '/missing', body: '' });
    expect(sockets.size).toBe(1);
  });

  it('opens a new connection after the server announced Connection: close', async () => {
    sockets.clear();
    const connection = new HttpConnection('127.0.0.1', port, 'Bearer t0k');
    expect((await connection.send('GET', '/close')).status).toBe(200);
    expect((await connection.send('GET', '/after')).status).toBe(200);
    connection.close();
    expect(sockets.size).toBe(2);
  });

  it('fails a call whose answer is not framed by Content-Length, and one the server hangs up on', async () => {
    const connection = new HttpConnection('127.0.0.1', port, 'Bearer t0k');
    await expect(connection.send('GET', '/chunked')).rejects.toThrow(/not framed by Content-Length: HTTP\/1.1 200/);
    await expect(connection.send('GET', '/hang-up')).rejects.toThrow(/closed before the answer/);
    expect((await connection.send('GET', '/fine')).status).toBe(200);
    connection.close();
  });
});
