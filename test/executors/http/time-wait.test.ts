/**
 * Who keeps a run's closed connection: the side that closes first holds its TCP TIME_WAIT for 60 s, and on the
 * agent's side that is a local port to the target (docs/checks.md, "The server closes first"). Read from the
 * kernel's own table (/proc/net/tcp), so Linux only.
 */
import { existsSync, readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { executeUrl } from '../../../src/executors/http/index.js';
import { startHttpServer, type TestServer } from '../../support/http-servers.js';
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

let server: TestServer | undefined;
afterEach(async () => {
  await server?.close();
  server = undefined;
});

describe.runIf(existsSync('/proc/net/tcp'))('closed connections', () => {
  it("leaves the TIME_WAIT of every run's connection to the server, none on the agent's side", async () => {
    server = await startHttpServer((_req, res) => res.end('ok'));
    const before = timeWaits(server.port);
    const runs = 20;
    for (let i = 0; i < runs; i++) {
      const attempt = await executeUrl(urlCheck({ url: server.url('/') }), runContext());
      expect(attempt.error).toBeNull();
    }
    // The last FIN and ACK cross on loopback within microseconds; the table is read once they have.
    await sleep(50);
    const after = timeWaits(server.port);
    expect(added(after.remote, before.remote)).toBe(0);
    expect(added(after.local, before.local)).toBe(runs);
  });
});
