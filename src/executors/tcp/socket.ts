import { connect as netConnect, type Socket } from 'node:net';
import { performance } from 'node:perf_hooks';
import type { StopReason } from '../deadline.js';
import { type Failure, failureOf } from './failure.js';
import { READ_IDLE_TIMEOUT_MS } from './limits.js';
import type { Reply } from './reply.js';

export interface Peer {
  address: string;
  port: number;
  family: 4 | 6;
}

export function peerName(peer: Peer): string {
  return peer.family === 6 ? `[${peer.address}]:${peer.port}` : `${peer.address}:${peer.port}`;
}

/** How a step ended when it did not succeed: an error of the peer or network, or a stop of the run. */
export type Interruption = { failure: Failure } | { stopped: StopReason };

const ignore = () => {};

/** Opens a TCP connection; resolves when the handshake completes, with the time it did. */
export function openConnection(
  peer: Peer,
  stop: AbortSignal,
): Promise<{ socket: Socket; at: number } | Interruption> {
  return new Promise((resolve) => {
    if (stop.aborted) return resolve({ stopped: stop.reason as StopReason });
    const socket = netConnect({ host: peer.address, port: peer.port, family: peer.family, noDelay: true });
    // Stays attached for the socket's whole life: an error after we stopped listening must not crash the agent.
    socket.on('error', ignore);
    const settle = (outcome: { socket: Socket; at: number } | Interruption) => {
      socket.off('connect', onConnect).off('error', onError);
      stop.removeEventListener('abort', onStop);
      if (!('socket' in outcome)) socket.destroy();
      resolve(outcome);
    };
    const onConnect = () => settle({ socket, at: performance.now() });
    const onError = (error: Error) => settle({ failure: failureOf(error, peerName(peer)) });
    const onStop = () => settle({ stopped: stop.reason as StopReason });
    socket.once('connect', onConnect).once('error', onError);
    stop.addEventListener('abort', onStop, { once: true });
  });
}

export interface ReadEnd {
  /** performance.now() at which the reply was complete. */
  at: number;
  interruption: Interruption | null;
}

/**
 * Sends the payload (if any) and reads the reply into `reply` until the peer closes, the reply satisfies
 * `isComplete`, the size bound is reached, or the peer stays quiet for READ_IDLE_TIMEOUT_MS. When the run's
 * deadline comes after some bytes, the reply is taken as it is, complete at its last byte.
 */
export function exchangeData(
  socket: Socket,
  peer: Peer,
  payload: string,
  reply: Reply,
  isComplete: ((text: string) => boolean) | null,
  stop: AbortSignal,
): Promise<ReadEnd> {
  return new Promise((resolve) => {
    let idle: NodeJS.Timeout | undefined;
    const finish = (at: number, interruption: Interruption | null = null) => {
      clearTimeout(idle);
      socket.off('data', onData).off('end', onEnd).off('close', onEnd).off('error', onError);
      stop.removeEventListener('abort', onStop);
      socket.pause();
      resolve({ at, interruption });
    };
    const begun = performance.now();
    // Silence ends the reply at its last byte. With nothing sent, no banner means the connect alone was the
    // check; with something sent, an answer was due and the wait for it counts.
    const quietEnd = () => reply.lastByteAt ?? (payload === '' ? begun : performance.now());
    const armIdle = () => {
      clearTimeout(idle);
      idle = setTimeout(() => finish(quietEnd()), READ_IDLE_TIMEOUT_MS);
    };
    const onData = (chunk: Buffer) => {
      const at = performance.now();
      const full = reply.add(chunk, at);
      if (full || isComplete?.(reply.text)) finish(at);
      else armIdle();
    };
    const onEnd = () => finish(performance.now());
    const onError = (error: Error) =>
      finish(performance.now(), { failure: failureOf(error, peerName(peer)) });
    const onStop = () => {
      const reason = stop.reason as StopReason;
      if (reason === 'overMaxResponseTime' && reply.lastByteAt !== null) finish(reply.lastByteAt);
      else finish(performance.now(), { stopped: reason });
    };
    if (stop.aborted) return onStop();
    socket.on('data', onData).once('end', onEnd).once('close', onEnd).once('error', onError);
    stop.addEventListener('abort', onStop, { once: true });
    if (payload !== '') socket.write(payload);
    armIdle();
  });
}
