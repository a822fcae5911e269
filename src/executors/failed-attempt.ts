import type { ResultDetail } from '../checks/index.js';
import type { Attempt } from './types.js';

export interface FailedAttemptOptions {
  /** Both default to now. */
  startedAt?: Date;
  stoppedAt?: Date;
  /** Milliseconds; 0 unless something was measured before it failed. */
  responseTime?: number;
  /** Nothing answered at all; see Attempt.networkError. */
  networkError?: boolean;
  /** Every attempt would fail alike; see Attempt.permanentError. */
  permanentError?: boolean;
  /** The kind's detail object; `{errorResult: {requestError}}` when none is given. */
  detail?: ResultDetail;
}

/** An attempt that errored (nothing judged, no flags but hasErrors), with one line saying why. */
export function failedAttempt(error: string, options: FailedAttemptOptions = {}): Attempt {
  const now = new Date();
  return {
    hasErrors: true,
    hasFailures: false,
    isDegraded: false,
    overMaxResponseTime: false,
    responseTime: options.responseTime ?? 0,
    startedAt: options.startedAt ?? now,
    stoppedAt: options.stoppedAt ?? now,
    networkError: options.networkError ?? false,
    ...(options.permanentError ? { permanentError: true } : {}),
    error,
    detail: options.detail ?? { errorResult: { requestError: error } },
  };
}
