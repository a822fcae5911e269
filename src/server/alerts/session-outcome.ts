import { type CheckResult, detailOf, type TlsDetails } from '../../checks/index.js';
import { isFailure } from '../sessions/status.js';
import type { ResultRow, SessionRow } from '../sessions/store.js';
import type { AlertSettings } from './settings.js';
import type { SessionOutcome } from './state-machine.js';

/**
 * What a finished session means for alerting: FAILED when it failed — for a `runParallel` check with the
 * percentage rule on, only when at least that share of its locations failed — DEGRADED when it degraded, PASSED
 * otherwise; null for a CANCELLED session, which changes nothing.
 */
export function sessionOutcome(
  session: Pick<SessionRow, 'status'>,
  finals: readonly Pick<ResultRow, 'status'>[],
  runParallel: boolean,
  settings: AlertSettings,
): SessionOutcome | null {
  if (session.status === 'CANCELLED' || session.status === 'RUNNING') return null;
  const rule = settings.parallelRunFailureThreshold;
  if (runParallel && rule.enabled && finals.length > 0) {
    const failed = finals.filter((r) => isFailure(r.status)).length;
    if (failed * 100 >= rule.percentage * finals.length) return 'FAILED';
    return finals.some((r) => r.status === 'DEGRADED') ? 'DEGRADED' : 'PASSED';
  }
  if (isFailure(session.status)) return 'FAILED';
  return session.status === 'DEGRADED' ? 'DEGRADED' : 'PASSED';
}

/** The result a notification tells of: the first that failed, else the first that degraded, else the first. */
export function tellingResult(finals: readonly ResultRow[]): ResultRow | undefined {
  return finals.find((r) => isFailure(r.status)) ?? finals.find((r) => r.status === 'DEGRADED') ?? finals[0];
}

/** The server certificate a result saw, when it made a TLS connection. */
export function tlsOf(record: CheckResult): TlsDetails | null {
  const response = detailOf(record)?.response as { tls?: TlsDetails | null } | null | undefined;
  return response?.tls ?? null;
}

/** The fewest days any final result's certificate has left, and the host it was for. */
export function soonestExpiry(
  finals: readonly ResultRow[],
): { daysRemaining: number; result: ResultRow } | null {
  let soonest: { daysRemaining: number; result: ResultRow } | null = null;
  for (const result of finals) {
    const days = tlsOf(result.record)?.daysRemaining;
    if (typeof days !== 'number') continue;
    if (!soonest || days < soonest.daysRemaining) soonest = { daysRemaining: days, result };
  }
  return soonest;
}

/** The status code and text of an API or URL check's response. */
export function responseStatusOf(record: CheckResult): { code: number | null; text: string } {
  const response = detailOf(record)?.response as
    | { status?: unknown; statusText?: unknown }
    | null
    | undefined;
  return {
    code: typeof response?.status === 'number' ? response.status : null,
    text: typeof response?.statusText === 'string' ? response.statusText : '',
  };
}
