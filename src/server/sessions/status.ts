import type { SessionStatus } from '../../checks/index.js';

/** How bad a final status is, for the worst-of-locations rule of parallel sessions. */
const SEVERITY: Record<SessionStatus, number> = {
  PASSED: 0,
  DEGRADED: 1,
  CANCELLED: 2,
  TIMED_OUT: 3,
  FAILED: 4,
};

export function worstStatus(statuses: readonly SessionStatus[]): SessionStatus {
  let worst: SessionStatus | null = null;
  for (const status of statuses) if (worst === null || SEVERITY[status] > SEVERITY[worst]) worst = status;
  return worst ?? 'TIMED_OUT';
}

/** Failed attempts are the ones a retry strategy retries, and the ones whose errors are grouped. */
export function isFailure(status: SessionStatus): boolean {
  return status === 'FAILED' || status === 'TIMED_OUT';
}

export type TestSessionStatus = 'RUNNING' | 'FAILED' | 'PASSED' | 'CANCELLED';

/** A finished test session: FAILED when any check session failed or timed out, else CANCELLED if any was, else PASSED. */
export function testSessionStatusOf(
  statuses: readonly SessionStatus[],
): Exclude<TestSessionStatus, 'RUNNING'> {
  if (statuses.some(isFailure)) return 'FAILED';
  if (statuses.includes('CANCELLED')) return 'CANCELLED';
  return 'PASSED';
}
