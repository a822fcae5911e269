import type { Check, CheckType } from '../../checks/index.js';
import type { Variable } from '../../checks/variables.js';
import type { AttemptEnd } from '../run/attempt.js';
import type { SessionOptions } from '../run/session.js';
import type { ClientCertificate } from '../types.js';

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

/** What of one attempt's context crosses to a thread (an agent's run): plain data, as the run brought it. */
export interface PooledAttemptOptions {
  runId: string;
  /** The variables the check inherits, nearest first; the check's own are in the check. */
  inherited: readonly (readonly Variable[])[];
  /** The run's secret values, which the thread masks wherever the attempt reports. */
  secrets: readonly string[];
  runLocation: string;
  clientCertificates: readonly ClientCertificate[];
  limitMs: number;
}

/**
 * Work for a thread; the check is sent validated, and is not validated again there. A session (`vantage run`) runs
 * its retries in the thread; an attempt (an agent's run) is one try.
 */
export type PooledJob =
  | { id: number; type: 'session'; check: Check; options: PooledSessionOptions }
  | { id: number; type: 'attempt'; check: Check; options: PooledAttemptOptions };

/** What a thread is started with. */
export interface ThreadData {
  /** Jobs it runs at once; the ones it holds beyond wait in its own queue. */
  slots: number;
}

/** Messages carry lists: one wake-up of the other thread for all that piled up meanwhile. */
export type ToThread = { type: 'jobs'; jobs: PooledJob[] } | { type: 'cancel'; ids: number[] };

export type FromThread =
  /** The thread has loaded the executors and takes work. */
  | { type: 'ready' }
  | {
      type: 'done';
      /** Sessions' records as JSON: serialised once, in the thread. */
      sessions: { id: number; json: string }[];
      /** Attempts as they ended, structured-cloned (their dates stay dates). */
      attempts: { id: number; end: AttemptEnd }[];
      failed: { id: number; message: string }[];
    };
