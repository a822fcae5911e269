import type { Check, CheckType } from '../../checks/index.js';
import type { SessionOptions } from '../run/session.js';

/**
 * The kinds a pool's threads run: network checks whose work is our own JavaScript. Browser and Playwright checks
 * run in processes of their own already; ICMP needs its native raw socket, which stays on the main thread.
 */
export const POOLED_KINDS: ReadonlySet<CheckType> = new Set(['URL', 'API', 'TCP', 'DNS']);

/** What of a session's options crosses to a thread: plain data only (no signal, no callbacks, no files). */
export type PooledSessionOptions = Pick<
  SessionOptions,
  'runLocation' | 'runSource' | 'overrides' | 'inherited' | 'clientCertificates' | 'limitMs'
>;

/** A session for a thread; the check is sent validated, and is not validated again there. */
export interface SessionJob {
  id: number;
  check: Check;
  options: PooledSessionOptions;
}

/** What a thread is started with. */
export interface ThreadData {
  /** Sessions it runs at once; the ones it holds beyond wait in its own queue. */
  slots: number;
}

/** Messages carry lists: one wake-up of the other thread for all that piled up meanwhile. */
export type ToThread = { type: 'sessions'; jobs: SessionJob[] } | { type: 'cancel'; ids: number[] };

export type FromThread =
  /** The thread has loaded the executors and takes work. */
  | { type: 'ready' }
  /** Sessions' records as JSON: serialised once, in the thread. */
  | { type: 'done'; sessions: { id: number; json: string }[]; failed: { id: number; message: string }[] };
