/**
 * The HTTP/1.1 engine on the wire: servers that answer scripted bytes, so each case is exactly what a real server
 * (or a broken one) sends.
 */
import type { Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { executeApi, executeUrl } from '../../../src/executors/http/index.js';
import { startTcpServer, type TcpTestServer } from '../../support/tcp-servers.js';
import { apiCheck, apiResult, runContext, urlCheck } from './fixtures.js';

let server: TcpTestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

/** A server that reads each request head (and its content-length body) and answers what `answer` returns. */
async function scripted(answer: (head: string, body: string, socket: Socket) => void): Promise<string> {
  server = await startTcpServer('127.0.0.1', (socket) => {
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      const end = buffered.indexOf('\r\n\r\n');
      if (end < 0) return;
      const head = buffered.subarray(0, end).toString('latin1');
      const length = Number(/\r\ncontent-length: (\d+)/i.exec(head)?.[1] ?? 0);
      if (buffered.length < end + 4 + length) return;
      const body = buffered.subarray(end + 4, end + 4 + length).toString();
      buffered = buffered.subarray(end + 4 + length);
      answer(head, body, socket);
    });
  });
  return `http://127.0.0.1:${server.port}`;
}

describe('responses', () => {
  it('skips informational responses (103 Early Hints) and reads the final one', async () => {
    const url = await scripted((_head, _body, socket) =>
      socket.write(
        'HTTP/1.1 103 Early Hints\r\nlink: </style.css>; rel=preload\r\n\r\n' +
          'HTTP/1.1 200 OK\r\ncontent-length: 5\r\n\r\nhello',
      ),
    );
    const attempt = await executeApi(apiCheck({ url: `${url}/` }), runContext());
    expect(attempt.error).toBeNull();
    expect(apiResult(attempt).response).toMatchObject({ status: 200, statusText: 'OK', body: 'hello' });
  });

  it('reads a chunked body, and a body that ends when the server closes the connection', async () => {
    const chunked = await scripted((_head, _body, socket) =>
      socket.write(
        'HTTP/1.1 200 OK\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n6\r\n world\r\n0\r\n\r\n',
      ),
    );
    const first = await executeApi(apiCheck({ url: `${chunked}/` }), runContext());
    expect(apiResult(first).response?.body).toBe('hello world');
    await server?.close();

    const closeDelimited = await scripted((_head, _body, socket) =>
      socket.end('HTTP/1.1 200 OK\r\nconnection: close\r\n\r\nuntil the end'),
    );
    const second = await executeApi(apiCheck({ url: `${closeDelimited}/` }), runContext());
    expect(second.error).toBeNull();
    expect(apiResult(second).response?.body).toBe('until the end');
  });

  it('reads no body after HEAD, whatever content-length says', async () => {
    const url = await scripted((_head, _body, socket) =>
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 1000\r\n\r\n'),
    );
    const attempt = await executeApi(apiCheck({ url: `${url}/`, method: 'HEAD' }), runContext());
    expect(attempt.error).toBeNull();
    expect(apiResult(attempt).response).toMatchObject({ status: 200, body: '' });
  });

  it('keeps repeated headers, joined in the result, and header bytes as latin1', async () => {
    const url = await scripted((_head, _body, socket) =>
      socket.write(
        Buffer.from(
          'HTTP/1.1 200 OK\r\nx-tag: a\r\nx-tag: b\r\nx-name: caf\xe9\r\ncontent-length: 0\r\n\r\n',
          'latin1',
        ),
      ),
    );
    const attempt = await executeUrl(urlCheck({ url: `${url}/` }), runContext());
    expect(apiResult(attempt).response?.headers).toMatchObject({ 'x-tag': 'a, b', 'x-name': 'café' });
  });

  it('keeps each body whole while many connections read at once', async () => {
    // Each answer comes in pieces, so the reads of all connections interleave on the one buffer.
    const bodyOf = (n: string) => `body ${n};`.repeat(20_000);
    const url = await scripted((head, _body, socket) => {
      const body = bodyOf(/^GET \/(\d+)/.exec(head)?.[1] ?? '?');
      socket.write(`HTTP/1.1 200 OK\r\ncontent-length: ${body.length}\r\n\r\n`);
      const pieces = [body.slice(0, 70_000), body.slice(70_000, 150_000), body.slice(150_000)];
      const next = () => {
        const piece = pieces.shift();
        if (piece !== undefined) socket.write(piece, () => setTimeout(next, 5));
      };
      next();
    });
    const ids = Array.from({ length: 12 }, (_, i) => String(i));
    const attempts = await Promise.all(
      ids.map((id) => executeApi(apiCheck({ url: `${url}/${id}` }), runContext())),
    );
    for (const [i, attempt] of attempts.entries()) {
      expect(attempt.error).toBeNull();
      expect(apiResult(attempt).response?.body === bodyOf(String(i))).toBe(true);
    }
  });

  it('names a response that is not HTTP, as a network error', async () => {
    const url = await scripted((_head, _body, socket) => socket.end('SSH-2.0-OpenSSH_9.6\r\n'));
    const attempt = await executeUrl(urlCheck({ url: `${url}/` }), runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true });
    expect(attempt.error).toMatch(/^the server's response is not valid HTTP\/1\.1 \(HPE_INVALID_CONSTANT/);
  });

  it('fails a connection closed before the response was complete', async () => {
    const noAnswer = await scripted((_head, _body, socket) => socket.end());
    const none = await executeUrl(urlCheck({ url: `${noAnswer}/` }), runContext());
    expect(none).toMatchObject({ hasErrors: true, networkError: true });
    expect(none.error).toBe('ECONNRESET: the server closed the connection before its response was complete');
    await server?.close();

    const cut = await scripted((_head, _body, socket) =>
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 100\r\n\r\nonly part'),
    );
    const partial = await executeApi(apiCheck({ url: `${cut}/` }), runContext());
    expect(partial.hasErrors).toBe(true);
    expect(partial.error).toMatch(/closed the connection before its response was complete/);
  });

  it('fails a response whose head passes 80 KB', async () => {
    const url = await scripted((_head, _body, socket) =>
      socket.write(`HTTP/1.1 200 OK\r\nx-big: ${'a'.repeat(100_000)}\r\n\r\n`),
    );
    const attempt = await executeUrl(urlCheck({ url: `${url}/` }), runContext());
    expect(attempt).toMatchObject({ hasErrors: true, networkError: true });
    expect(attempt.error).toMatch(/not valid HTTP\/1\.1 \(HPE_HEADER_OVERFLOW: max header size exceeded\)/);
  });

  it('fails a server that switches protocols', async () => {
    const url = await scripted((_head, _body, socket) =>
      socket.write('HTTP/1.1 101 Switching Protocols\r\nupgrade: websocket\r\nconnection: upgrade\r\n\r\n'),
    );
    const attempt = await executeUrl(urlCheck({ url: `${url}/` }), runContext());
    expect(attempt.error).toMatch(/switched protocols \(101\)/);
  });
});

describe('requests', () => {
  it('sends host, the check headers as written and content-length, and content-length 0 for an empty POST', async () => {
    const heads: string[] = [];
    const url = await scripted((head, _body, socket) => {
      heads.push(head);
      socket.write('HTTP/1.1 204 No Content\r\n\r\n');
    });
    await executeApi(
      apiCheck({
        url: `${url}/p?q=1`,
        method: 'POST',
        bodyType: 'RAW',
        body: 'héllo',
        headers: [{ key: 'X-Case', value: 'v' }],
      }),
      runContext(),
    );
    await executeApi(apiCheck({ url: `${url}/empty`, method: 'POST' }), runContext());
    const [withBody, empty] = heads;
    expect(withBody).toMatch(/^POST \/p\?q=1 HTTP\/1\.1\r\nhost: 127\.0\.0\.1:\d+\r\n/);
    expect(withBody).toContain('\r\nX-Case: v\r\n');
    expect(withBody).toContain('\r\ncontent-length: 6');
    expect(empty).toContain('\r\ncontent-length: 0');
  });

  it('refuses a header value with a line break, naming the header but never its value', async () => {
    const url = await scripted((_head, _body, socket) =>
      socket.write('HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n'),
    );
    const attempt = await executeApi(
      apiCheck({ url: `${url}/`, headers: [{ key: 'X-Token', value: 's3cret\r\nX-Injected: 1' }] }),
      runContext(),
    );
    expect(attempt).toMatchObject({ hasErrors: true, networkError: false });
    expect(attempt.error).toBe('header X-Token: its value holds a line break or a control character');
    expect(server?.connections()).toBe(0);
  });

  it('refuses headers that would change how the body is framed', async () => {
    const attempt = await executeApi(
      apiCheck({ url: 'http://127.0.0.1:9/', headers: [{ key: 'Transfer-Encoding', value: 'chunked' }] }),
      runContext(),
    );
    expect(attempt.error).toBe(
      'header Transfer-Encoding cannot be set: the body is sent with a content-length',
    );
  });

  /** A server that redirects /from to /to and keeps every connection open, whatever the request asked. */
  const keepingOpen = (heads: string[] = []) =>
    scripted((head, _body, socket) => {
      heads.push(head);
      if (head.startsWith('GET /from '))
        socket.write('HTTP/1.1 302 Found\r\nlocation: /to\r\ncontent-length: 4\r\n\r\nmove');
      else socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok');
    });

  it('asks the server to close the connection, and sends nothing more on it even when the server keeps it', async () => {
    const heads: string[] = [];
    const url = await keepingOpen(heads);
    const attempt = await executeApi(apiCheck({ url: `${url}/from` }), runContext());
    expect(apiResult(attempt).response?.body).toBe('ok');
    expect(heads).toHaveLength(2);
    for (const head of heads) expect(head).toMatch(/\r\nconnection: close(\r\n|$)/);
    expect(apiResult(attempt).request.headers).toMatchObject({ connection: 'close' });
    expect(server?.connections()).toBe(2);
  });

  it.each([
    ['keep-alive', 'keeps the connection for a redirect to the same origin', 1],
    ['Close', 'opens a new one for it', 2],
  ])("takes the check's own connection: %s at its word: %s", async (value, _what, connections) => {
    const url = await keepingOpen();
    const check = apiCheck({ url: `${url}/from`, headers: [{ key: 'Connection', value }] });
    const attempt = await executeApi(check, runContext());
    expect(apiResult(attempt).response?.body).toBe('ok');
    expect(server?.connections()).toBe(connections);
  });
});
