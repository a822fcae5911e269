import { setTimeout as sleep } from 'node:timers/promises';
import type { EchoOutcome, PingSession } from './session.js';

/*
 * Timing of a run. Echo requests go out on a fixed schedule, like ping's, without waiting for earlier replies:
 * every PING_INTERVAL_MS (the interval the service documents), closer together when more than 41 pings would
 * not fit in SEND_WINDOW_MS. Each waits REPLY_TIMEOUT_MS for its reply. With the name lookup bounded to 5 s,
 * a run of 50 pings ends within 5 + 20 + 2 = 27 s, inside the 30 s execution limit; 10 pings take 4.5 s
 * plus the last round trip.
 */
export const PING_INTERVAL_MS = 500;
export const SEND_WINDOW_MS = 20_000;
export const REPLY_TIMEOUT_MS = 2000;

export interface EchoResult extends EchoOutcome {
  /** 1 for the first echo request of the run. */
  sequence: number;
}

export function pingIntervalMs(count: number): number {
  return count > 1 ? Math.min(PING_INTERVAL_MS, SEND_WINDOW_MS / (count - 1)) : 0;
}

/**
 * Sends `count` echo requests to `address` and waits for every reply or timeout. Stops sending when the
 * signal fires or the session closes (closing it also ends the waits): only requests sent are returned.
 */
export async function sendEchoRequests(
  session: PingSession,
  address: string,
  count: number,
  signal: AbortSignal,
): Promise<EchoResult[]> {
  const interval = pingIntervalMs(count);
  const start = performance.now();
  const results: Promise<EchoResult>[] = [];
  for (let i = 0; i < count; i++) {
    const wait = start + i * interval - performance.now();
    if (wait > 0) await sleep(wait, undefined, { signal }).catch(() => undefined);
    if (signal.aborted || session.isClosed) break;
    const sequence = i + 1;
    results.push(session.echo(address, REPLY_TIMEOUT_MS).then((outcome) => ({ sequence, ...outcome })));
  }
  return Promise.all(results);
}
