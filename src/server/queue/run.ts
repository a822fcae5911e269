import type { CheckType, RunSource } from '../../checks/index.js';
import type { RunMessage } from '../../protocol/index.js';
import { withBundleUrl } from '../bundles/ref.js';
import type { RunStatus } from './rules.js';

/** What a run carries to its agent besides its ids: fixed when the run is made. */
export interface RunPayload {
  runSource: RunSource;
  /** The check as stored, merged with its group's settings. */
  check: Record<string, unknown>;
  inheritedVariables: RunMessage['inheritedVariables'];
  clientCertificates: RunMessage['clientCertificates'];
  /** Where a retry may run when the retry strategy allows another location. */
  retryLocations: string[];
}

/** One row of the `runs` table. */
export interface RunRow {
  id: string;
  account_id: string;
  session_id: string;
  check_id: string;
  location: string;
  slot_class: string;
  check_type: CheckType;
  attempt: number;
  status: RunStatus;
  /** Null for runs made since payloads are kept apart (src/server/queue/payloads.ts) until read with them. */
  payload: RunPayload;
  /** The key of the run's payload in `run_payloads`; null for runs made before. */
  payload_key: string | null;
  scheduled_at: Date;
  not_before: Date;
  expires_at: Date;
  agent_id: string | null;
  lease_expires_at: Date | null;
  leases: number;
  lease_losses: number;
  cancel_requested_at: Date | null;
  chain_started_at: Date | null;
  finished_at: Date | null;
  reason: string | null;
  /** The id of the run's one result, once it has one. */
  result_id: string | null;
}

/** The columns a lease returns (lease.ts): what a run's `run` message and the lease's reach read. */
export const LEASED_COLUMNS = [
  'id',
  'session_id',
  'check_id',
  'check_type',
  'attempt',
  'location',
  'payload',
  'payload_key',
  'scheduled_at',
  'not_before',
  'lease_expires_at',
] as const;

/** A run as its lease returns it. */
export type LeasedRun = Pick<RunRow, (typeof LEASED_COLUMNS)[number]>;

/**
 * The `run` message that hands a leased run to its agent; `publicUrl` is where the agent fetches its bundle. With
 * `sentAt` (an agent that takes runs ahead of their start), a run not due yet says how long the agent holds it.
 */
export function runMessageOf(run: LeasedRun, publicUrl: string, sentAt?: Date): RunMessage {
  const startInMs = sentAt ? run.not_before.getTime() - sentAt.getTime() : 0;
  return {
    type: 'run',
    runId: run.id,
    checkSessionId: run.session_id,
    attempt: run.attempt,
    runSource: run.payload.runSource,
    runLocation: run.location,
    check: withBundleUrl(run.payload.check, run.id, publicUrl),
    inheritedVariables: run.payload.inheritedVariables,
    clientCertificates: run.payload.clientCertificates,
    leaseExpiresAt: new Date(run.lease_expires_at ?? Date.now()).toISOString(),
    ...(startInMs > 0 ? { startInMs } : {}),
  };
}
