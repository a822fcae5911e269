/** Real TCP servers on loopback for the TCP executor's tests; each closes every connection it accepted. */
import { createServer, type Server, type Socket } from 'node:net';

export type LoopbackHost = '127.0.0.1' | '::1';

export interface TcpTestServer {
  host: LoopbackHost;
  port: number;
  /** Connections accepted so far. */
  connections: () => number;
  close: () => Promise<void>;
}

/** A server on an ephemeral loopback port that hands each connection to `onConnection`. */
export async function startTcpServer(
  host: LoopbackHost,
  onConnection: (socket: Socket) => void,
): Promise<TcpTestServer> {
  const sockets = new Set<Socket>();
  let accepted = 0;
  const server: Server = createServer((socket) => {
    accepted += 1;
    sockets.add(socket);
    socket.on('error', () => {});
    socket.on('close', () => sockets.delete(socket));
    onConnection(socket);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, host, () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('server has no port');
  return {
    host,
    port: address.port,
    connections: () => accepted,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Sends back every byte it receives and keeps the connection open. */
export const echoServer = (host: LoopbackHost = '127.0.0.1') =>
  startTcpServer(host, (socket) => socket.pipe(socket));

/** Greets each connection with `banner`, then keeps it open (or closes it with `close`). */
export const bannerServer = (banner: string, options: { close?: boolean; host?: LoopbackHost } = {}) =>
  startTcpServer(options.host ?? '127.0.0.1', (socket) => {
    if (options.close) socket.end(banner);
    else socket.write(banner);
  });

/** Answers `reply` to the first bytes it receives, after `delayMs`, and keeps the connection open. */
export const delayedReplyServer = (reply: string, delayMs: number) =>
  startTcpServer('127.0.0.1', (socket) => {
    socket.once('data', () => {
      const timer = setTimeout(() => socket.writable && socket.write(reply), delayMs);
      socket.once('close', () => clearTimeout(timer));
    });
  });

/** Accepts connections and never sends a byte. */
export const silentServer = () => startTcpServer('127.0.0.1', () => {});

/** Sends data without end, as fast as the reader takes it, until the connection closes. */
export const floodServer = () =>
  startTcpServer('127.0.0.1', (socket) => {
    const chunk = Buffer.alloc(64 * 1024, 'x');
    const pump = () => {
      while (!socket.destroyed && socket.write(chunk)) {}
    };
    socket.on('drain', pump);
    pump();
  });

/** Resets the connection (RST) as soon as the first bytes arrive. */
export const resetServer = () =>
  startTcpServer('127.0.0.1', (socket) => {
    socket.once('data', () => socket.resetAndDestroy());
  });

/** A loopback port with nothing listening on it. */
export async function closedPort(): Promise<number> {
  const server = await startTcpServer('127.0.0.1', () => {});
  await server.close();
  return server.port;
}
