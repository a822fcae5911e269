/**
 * Who keeps a run's closed connection: the side that closes first holds its TCP TIME_WAIT for 60 s, and on the
 * agent's side that is a local port to the target (docs/checks.md, "The server closes first"). Read from the
 * kernel's own table (/proc/net/tcp), so Linux only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { executeUrl } from '../../../src/executors/http/index.js';
import { startHttpServer } from '../../support/http-servers.js';
import { startTcpServer } from '../../support/tcp-servers.js';
import { runContext, urlCheck } from './fixtures.js';

const TIME_WAIT = '06';

/** The connections in TIME_WAIT with `port` at one end, as the kernel lists them: `local remote` address pairs. */
function timeWaits(port: number): { local: Set<string>; remote: Set<string> } {
  const hex = port.toString(16).toUpperCase().padStart(4, '0');
  const local = new Set<string>();
  const remote = new Set<string>();
  for (const line of readFileSync('/proc/net/tcp', 'utf8').split('\n').slice(1)) {
    const [, localAddress = '', remoteAddress = '', state] = line.trim().split(/\s+/);
    if (state !== TIME_WAIT) continue;
    if (localAddress.endsWith(`:${hex}`)) local.add(`${localAddress} ${remoteAddress}`);
    if (remoteAddress.endsWith(`:${hex}`)) remote.add(`${localAddress} ${remoteAddress}`);
  }
  return { local, remote };
}

/** Those of `after` that `before` did not hold: a port may still have entries of an earlier test's server. */
const added = (after: Set<string>, before: Set<string>) =>
  [...after].filter((pair) => !before.has(pair)).length;

let server: { port: number; close(): Promise<void> } | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.runIf(existsSync('/proc/net/tcp'))('closed connections', () => {
  /** `runs` URL checks one after another to `url`; then the TIME_WAITs they added at each end of `port`. */
  async function runAndCount(url: string, port: number, runs: number) {
    const before = timeWaits(port);
    for (let i = 0; i < runs; i++) {
      const attempt = await executeUrl(urlCheck({ url }), runContext());
      expect(attempt.error).toBeNull();
    }
    // Past the servers' last FIN (50 ms late below) and the ACKs that cross on loopback within microseconds.
    await sleep(150);
    const after = timeWaits(port);
    return { agentSide: added(after.remote, before.remote), serverSide: added(after.local, before.local) };
  }

  it("leaves the TIME_WAIT of every run's connection to the server, none on the agent's side", async () => {
    const http = await startHttpServer((_req, res) => res.end('ok'));
    server = http;
    expect(await runAndCount(http.url('/'), http.port, 20)).toEqual({ agentSide: 0, serverSide: 20 });
  });

  it('waits for a server that closes a little after its response, and still ends the run at the response', async () => {
    let closedByServer = 0;
    const late = await startTcpServer('127.0.0.1', (socket) =>
      socket.once('data', () => {
        socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
        setTimeout(() => {
          closedByServer += 1;
          socket.end();
        }, 50);
      }),
    );
    server = late;
    const url = `http://127.0.0.1:${late.port}/`;
    const first = await executeUrl(urlCheck({ url }), runContext());
    expect(first.error).toBeNull();
    expect(closedByServer).toBe(0);
    // The first run's connection closes while these run: it is counted with theirs.
    expect(await runAndCount(url, late.port, 5)).toEqual({ agentSide: 0, serverSide: 6 });
  });

  it('closes the connection itself when the server keeps it open after all', async () => {
    let closed = 0;
    const keeping = await startTcpServer('127.0.0.1', (socket) => {
      socket.once('data', () => socket.write('HTTP/1.1 200 OK\r\ncontent-length: 2\r\n\r\nok'));
      socket.on('close', () => {
        closed += 1;
      });
    });
    server = keeping;
    const attempt = await executeUrl(urlCheck({ url: `http://127.0.0.1:${keeping.port}/` }), runContext());
    expect(attempt.error).toBeNull();
    expect(closed).toBe(0);
    await vi.waitFor(() => expect(closed).toBe(1), { timeout: 5000, interval: 100 });
  });
});
