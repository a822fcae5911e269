/** The status of a check as the API answers it, shared with the web app (web/src/types.ts): no server code here. */
import type { CheckType } from '../../checks/enums.js';

/** What a person sees of a check first: paused and muted win over what its runs say. */
export const CHECK_STATES = ['PASSING', 'DEGRADED', 'FAILING', 'MUTED', 'PAUSED', 'NO_DATA'] as const;
export type CheckState = (typeof CHECK_STATES)[number];
export type AlertState = 'PASSING' | 'DEGRADED' | 'FAILING';

/**
 * The current status of a check, in the shape of Checkly's `GET /v1/check-statuses` (its fields first), with what
 * the web app's checks page adds: the check's state, type, tags, locations and the session of its last run.
 */
export interface CheckStatus {
  name: string;
  checkId: string;
  /** The last finished run failed (FAILED or TIMED_OUT at a location). */
  hasFailures: boolean;
  /** The last finished run ended on an error rather than only on a failed assertion. */
  hasErrors: boolean;
  isDegraded: boolean;
  /** Of the last run's locations, the slowest and fastest response time in ms (null before the first run). */
  longestRun: number | null;
  shortestRun: number | null;
  lastRunLocation: string | null;
  /** The id of the last run's result (Checkly calls a result a check run). */
  lastCheckRunId: string | null;
  lastCheckSessionId: string | null;
  lastRunAt: string | null;
  /** Days the last run's TLS certificate has left, when it made a TLS connection. */
  sslDaysRemaining: number | null;
  state: CheckState;
  /** The alert state (docs/alerting.md); null before the first counted run. */
  alertState: AlertState | null;
  checkType: CheckType;
  /** The check and its group are activated: the scheduler runs it. */
  activated: boolean;
  muted: boolean;
  tags: string[];
  groupId: number | null;
  locations: string[];
  created_at: string;
  updated_at: string | null;
}
