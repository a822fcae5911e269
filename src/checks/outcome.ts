import type { SessionStatus } from './enums.js';

/** What an attempt found, before shouldFail is applied. */
export interface AttemptFlags {
  hasErrors: boolean;
  hasFailures: boolean;
  isDegraded: boolean;
  overMaxResponseTime: boolean;
  timedOut?: boolean;
  cancelled?: boolean;
}

/** The final status of a run (docs/checks.md, Outcome of a run). */
export function statusOf(flags: AttemptFlags, shouldFail: boolean): SessionStatus {
  if (flags.cancelled) return 'CANCELLED';
  if (flags.timedOut) return 'TIMED_OUT';
  const failed = flags.hasErrors || flags.hasFailures || flags.overMaxResponseTime;
  if (!failed && flags.isDegraded) return 'DEGRADED';
  return failed !== shouldFail ? 'FAILED' : 'PASSED';
}

/** Degraded or failed by response time, against nullable thresholds (null: no threshold). */
export function responseTimeFlags(
  responseTime: number,
  thresholds: { degradedResponseTime?: number | null; maxResponseTime?: number | null },
): { isDegraded: boolean; overMaxResponseTime: boolean } {
  const { degradedResponseTime, maxResponseTime } = thresholds;
  return {
    overMaxResponseTime: maxResponseTime != null && responseTime > maxResponseTime,
    isDegraded: degradedResponseTime != null && responseTime > degradedResponseTime,
  };
}
