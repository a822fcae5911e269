import { isIP, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { TcpTimingPhases } from '../../checks/index.js';
import { startDeadline } from '../deadline.js';
import { aborted, type Failure, failureOf, timedOut } from './failure.js';
import { Reply } from './reply.js';
import { literalAddress, lookupAddress } from './resolve.js';
import { exchangeData, type Interruption, openConnection, type Peer, peerName } from './socket.js';

export interface ExchangeRequest {
  hostname: string;
  port: number;
  family: 4 | 6;
  /** Sent once connected; '' sends nothing. */
  payload: string;
  /** Whether to read a reply at all (always when something is sent). */
  readReply: boolean;
  isComplete: ((text: string) => boolean) | null;
  maxResponseTime: number | null;
}

export interface ExchangeOutcome {
  /** The address connected to (or tried), null when the name did not resolve. */
  address: string | null;
  connected: boolean;
  reply: string;
  /** Milliseconds; when no connection was made, `connect` is the time spent trying. */
  phases: TcpTimingPhases;
  failure: Failure | null;
  /** Stopped by maxResponseTime before an answer came. */
  overMaxResponseTime: boolean;
}

/** Resolves, connects, sends and reads, timing each phase; never rejects, always closes its socket. */
export async function exchange(request: ExchangeRequest, cancel: AbortSignal): Promise<ExchangeOutcome> {
  const deadline = startDeadline(cancel, request.maxResponseTime);
  const reply = new Reply();
  const start = performance.now();
  let resolvedAt: number | null = null;
  let connectedAt: number | null = null;
  let peer: Peer | null = null;
  let socket: Socket | null = null;

  const outcome = (end: number, interruption: Interruption | null, step: string): ExchangeOutcome => {
    const deadlineHit =
      interruption !== null && 'stopped' in interruption && interruption.stopped === 'overMaxResponseTime';
    return {
      address: peer?.address ?? null,
      connected: connectedAt !== null,
      reply: reply.finish(),
      phases: phasesOf(start, resolvedAt, connectedAt, end),
      failure:
        interruption &&
        failureOfInterruption(interruption, step, peer ? peerName(peer) : request.hostname, request, cancel),
      overMaxResponseTime: deadlineHit,
    };
  };

  try {
    let address = literalAddress(request.hostname);
    if (address !== null) resolvedAt = start;
    else {
      try {
        address = await lookupAddress(request.hostname, request.family, deadline.signal);
        resolvedAt = performance.now();
      } catch (error) {
        const stopped = deadline.reason();
        const interruption: Interruption = stopped
          ? { stopped }
          : { failure: failureOf(error, request.hostname) };
        return outcome(performance.now(), interruption, 'getaddrinfo');
      }
    }
    peer = { address, port: request.port, family: isIP(address) === 6 ? 6 : 4 };
    const opened = await openConnection(peer, deadline.signal);
    if (!('socket' in opened)) return outcome(performance.now(), opened, 'connect');
    socket = opened.socket;
    connectedAt = opened.at;
    if (request.payload === '' && !request.readReply) return outcome(connectedAt, null, 'read');
    const end = await exchangeData(socket, peer, request.payload, reply, request.isComplete, deadline.signal);
    return outcome(end.at, end.interruption, 'read');
  } catch (error) {
    return outcome(performance.now(), { failure: failureOf(error, request.hostname) }, 'exchange');
  } finally {
    socket?.destroy();
    deadline.dispose();
  }
}

function failureOfInterruption(
  interruption: Interruption,
  step: string,
  target: string,
  request: ExchangeRequest,
  cancel: AbortSignal,
): Failure {
  if ('failure' in interruption) return interruption.failure;
  if (interruption.stopped === 'runStopped') return aborted(cancel.reason);
  return timedOut(step, target, request.maxResponseTime ?? 0);
}

const round = (ms: number) => Math.round(ms * 1000) / 1000;

/** The phases, each to the microsecond, adding up to `total`. */
function phasesOf(
  start: number,
  resolvedAt: number | null,
  connectedAt: number | null,
  end: number,
): TcpTimingPhases {
  const resolved = resolvedAt ?? end;
  const connected = connectedAt ?? end;
  const dns = round(resolved - start);
  const connect = round(connected - resolved);
  const data = round(end - connected);
  return { dns, connect, data, total: round(dns + connect + data) };
}
