import { connect } from 'node:net';
import { parsedApiCheck, runCheckAlone } from '../agent-ingest/check.js';

/** What bench/paced-checks.ts paces, one row each. */
export const PACED_RUNS = ['wake', 'socket', 'check'] as const;
export type PacedRun = (typeof PACED_RUNS)[number];

/** A GET on a connection of its own, as a check makes one, by node:net alone: no HTTP client, no result. */
function bareSocket(target: URL, i: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const socket = connect(Number(target.port), target.hostname);
    socket.on('connect', () =>
      socket.write(`GET /socket-${i} HTTP/1.1\r\nHost: ${target.host}\r\nConnection: close\r\n\r\n`),
    );
    socket.on('data', () => {});
    socket.on('end', () => socket.end());
    socket.on('close', () => resolve());
    socket.on('error', reject);
  });
}

/** The i-th run of `what` against the target at `url` (an address ending in `/`). */
export function pacedRun(what: PacedRun, url: string): (i: number) => Promise<unknown> {
  if (what === 'wake') return () => Promise.resolve();
  const target = new URL(url);
  if (what === 'socket') return (i) => bareSocket(target, i);
  const checks = Array.from({ length: 100 }, (_, i) => parsedApiCheck(`${url}paced-${i}`));
  return (i) => runCheckAlone(checks[i % checks.length] as (typeof checks)[number]);
}
