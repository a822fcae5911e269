/**
 * HTTP and HTTPS servers for tests, on 127.0.0.1 or [::1], each on a free port. `close()` ends open
 * connections too, so a test never waits on a client that is still reading.
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type RequestListener,
  type Server,
} from 'node:http';
import { createServer as createHttpsServer, type ServerOptions as HttpsOptions } from 'node:https';
import type { AddressInfo } from 'node:net';

export interface TestServer {
  server: Server;
  host: string;
  port: number;
  /** `http://127.0.0.1:1234` or `https://[::1]:1234`, without a trailing slash. */
  origin: string;
  /** The origin with `path` appended. */
  url(path?: string): string;
  close(): Promise<void>;
}

export interface ListenOptions {
  /** 127.0.0.1 (default) or ::1 */
  host?: string;
  /** A given port; a free one by default. */
  port?: number;
}

async function listen(server: Server, scheme: 'http' | 'https', host: string, port = 0): Promise<TestServer> {
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, host, () => resolve());
  });
  const { port: bound } = server.address() as AddressInfo;
  const origin = `${scheme}://${host.includes(':') ? `[${host}]` : host}:${bound}`;
  return {
    server,
    host,
    port: bound,
    origin,
    url: (path = '/') => `${origin}${path}`,
    close: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

export function startHttpServer(handler: RequestListener, options: ListenOptions = {}): Promise<TestServer> {
  return listen(createHttpServer(handler), 'http', options.host ?? '127.0.0.1', options.port);
}

export function startHttpsServer(
  handler: RequestListener,
  tls: HttpsOptions,
  options: ListenOptions = {},
): Promise<TestServer> {
  return listen(createHttpsServer(tls, handler) as unknown as Server, 'https', options.host ?? '127.0.0.1');
}

/** A request as a server saw it: method, path with query, headers and body text. */
export interface ReceivedRequest {
  method: string;
  url: string;
  headers: IncomingMessage['headers'];
  body: string;
}

export async function receiveRequest(req: IncomingMessage): Promise<ReceivedRequest> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  return {
    method: req.method ?? '',
    url: req.url ?? '',
    headers: req.headers,
    body: Buffer.concat(chunks).toString('utf8'),
  };
}

/** A server that records every request it receives and answers each with `answer` (200 '' by default). */
export async function startRecordingServer(
  answer: RequestListener = (_req, res) => res.end(),
  options: ListenOptions = {},
): Promise<TestServer & { received: ReceivedRequest[] }> {
  const received: ReceivedRequest[] = [];
  const server = await startHttpServer(async (req, res) => {
    received.push(await receiveRequest(req));
    answer(req, res);
  }, options);
  return { ...server, received };
}
