/**
 * Plain connections on Node.js's TCP handle (`TcpHandleSocket`) behave as the `net.Socket` they replace: the same
 * events in the same order, the same errors, writes made while connecting sent once connected, reading paused and
 * resumed. Each case runs both against the same real server and compares what they saw.
 */
import { connect as netConnect, type Socket } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { executeUrl } from '../../../src/executors/http/index.js';
import {
  TcpHandleSocket,
  tcpHandleAvailable,
  useNetSockets,
  type WireSocket,
} from '../../../src/executors/http/wire/tcp-handle.js';
import { startTcpServer, type TcpTestServer } from '../../support/tcp-servers.js';
import { runContext, urlCheck } from './fixtures.js';

let server: TcpTestServer | undefined;
afterEach(async () => {
  useNetSockets(false);
  await server?.close();
  server = undefined;
});

type Open = (host: string, port: number) => WireSocket;
const kinds: [string, Open][] = [
  ['TcpHandleSocket', (host, port) => new TcpHandleSocket(host, port, 4)],
  ['net.Socket', (host, port) => netConnect({ host, port, family: 4, autoSelectFamily: false })],
];

interface Seen {
  events: string[];
  data: string;
  error: NodeJS.ErrnoException | null;
}

/** Opens a connection, records its events until it closes; `use` acts on it as it opens. */
function watch(socket: WireSocket, use: (socket: WireSocket) => void = () => {}): Promise<Seen> {
  const seen: Seen = { events: [], data: '', error: null };
  return new Promise((resolve) => {
    socket
      .once('lookup', (error, address) => seen.events.push(`lookup ${error ? 'failed' : address}`))
      .once('connect', () => seen.events.push('connect'));
    socket
      .on('data', (chunk) => {
        if (!seen.events.includes('data')) seen.events.push('data');
        seen.data += chunk.toString('latin1');
      })
      .on('end', () => seen.events.push('end'))
      .on('error', (error) => {
        seen.events.push('error');
        seen.error = error;
      })
      .on('close', () => {
        seen.events.push('close');
        resolve(seen);
      });
    use(socket);
  });
}

function errorFacts(error: NodeJS.ErrnoException | null) {
  if (!error) return null;
  const { message, code, errno, syscall } = error;
  const { address, port } = error as { address?: string; port?: number };
  return { message, code, errno, syscall, address, port };
}

it("is used where Node.js's TCP binding is there (Node.js 22 and 24)", () => {
  expect(tcpHandleAvailable()).toBe(true);
});

describe.each(kinds)('%s', (_kind, open) => {
  it('sends writes made while connecting once connected, reads the answer, then ends and closes', async () => {
    server = await startTcpServer('127.0.0.1', (socket) => {
      socket.once('data', (chunk) => socket.end(`you said ${chunk.toString('latin1')}`));
    });
    const seen = await watch(open('127.0.0.1', server.port), (socket) => {
      socket.cork();
      socket.write('hello ', 'latin1');
      socket.write(Buffer.from('there'));
      socket.uncork();
      socket.on('end', () => socket.destroy());
    });
    expect(seen).toEqual({
      events: ['connect', 'data', 'end', 'close'],
      data: 'you said hello there',
      error: null,
    });
  });

  it('looks a name up first, and reports where it found it', async () => {
    server = await startTcpServer('127.0.0.1', (socket) => socket.end('hi'));
    const seen = await watch(open('localhost', server.port), (socket) => {
      socket.on('end', () => socket.destroy());
    });
    expect(seen.events).toEqual(['lookup 127.0.0.1', 'connect', 'data', 'end', 'close']);
  });

  it('sends a large body whole', async () => {
    const body = Buffer.alloc(8 * 1024 * 1024, 'x');
    server = await startTcpServer('127.0.0.1', (socket) => {
      let received = 0;
      socket.on('data', (chunk: Buffer) => {
        received += chunk.length;
        if (received === body.length) socket.end(`${received}`);
      });
    });
    const seen = await watch(open('127.0.0.1', server.port), (socket) => {
      socket.write(body);
      socket.on('end', () => socket.destroy());
    });
    expect(seen.data).toBe(String(body.length));
  });

  it('stops reading while paused and goes on when resumed (twice over)', async () => {
    server = await startTcpServer('127.0.0.1', (socket) => {
      socket.write('first');
      setTimeout(() => socket.end('second'), 50);
    });
    let chunks = 0;
    let pausedSeen = '';
    const seen = await watch(open('127.0.0.1', server.port), (socket) => {
      socket.on('data', (chunk) => {
        chunks += 1;
        if (chunks > 1) return;
        expect(chunk.toString('latin1')).toBe('first');
        socket.pause();
        setTimeout(() => {
          pausedSeen = String(chunks);
          socket.resume();
          socket.resume();
        }, 150);
      });
      socket.on('end', () => socket.destroy());
    });
    // Nothing came in the 150 ms it was paused, though the server sent the rest after 50 ms.
    expect(pausedSeen).toBe('1');
    expect(seen.data).toBe('firstsecond');
    expect(seen.events.slice(-2)).toEqual(['end', 'close']);
  });

  it('calls back after the given silence', async () => {
    server = await startTcpServer('127.0.0.1', () => {});
    const started = performance.now();
    const seen = await watch(open('127.0.0.1', server.port), (socket) => {
      socket.setTimeout(100, () => socket.destroy());
    });
    expect(performance.now() - started).toBeGreaterThanOrEqual(95);
    expect(seen.events).toEqual(['connect', 'close']);
  });

  it('closes without connecting when destroyed at once', async () => {
    server = await startTcpServer('127.0.0.1', () => {});
    const seen = await watch(open('127.0.0.1', server.port), (socket) => socket.destroy());
    expect(seen.events).toEqual(['close']);
    expect(server.connections()).toBe(0);
  });
});

describe('errors, the same as net makes them', () => {
  it('a refused connection', async () => {
    server = await startTcpServer('127.0.0.1', () => {});
    const { port } = server;
    await server.close();
    server = undefined;
    const [handle, net] = await Promise.all(kinds.map(([, open]) => watch(open('127.0.0.1', port))));
    expect(handle?.events).toEqual(['error', 'close']);
    expect(errorFacts(handle?.error ?? null)).toEqual(errorFacts(net?.error ?? null));
    expect(handle?.error?.message).toBe(`connect ECONNREFUSED 127.0.0.1:${port}`);
  });

  it('a connection the server resets', async () => {
    server = await startTcpServer('127.0.0.1', (socket: Socket) => {
      socket.once('data', () => socket.resetAndDestroy());
    });
    const { port } = server;
    const [handle, net] = await Promise.all(
      kinds.map(([, open]) => watch(open('127.0.0.1', port), (socket) => socket.write('hello', 'latin1'))),
    );
    expect(handle?.events).toEqual(['connect', 'error', 'close']);
    expect(errorFacts(handle?.error ?? null)).toEqual(errorFacts(net?.error ?? null));
    expect(handle?.error?.code).toBe('ECONNRESET');
  });
});

it('runs URL checks on net.Socket too, where the binding is not there', async () => {
  server = await startTcpServer('127.0.0.1', (socket) => {
    socket.once('data', () =>
      socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok'),
    );
  });
  useNetSockets(true);
  expect(tcpHandleAvailable()).toBe(false);
  const attempt = await executeUrl(urlCheck({ url: `http://127.0.0.1:${server.port}/` }), runContext());
  expect(attempt.error).toBeNull();
  expect(attempt.hasErrors).toBe(false);
});
