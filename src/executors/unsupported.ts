import type { CheckType } from '../checks/index.js';
import type { Attempt, Executor } from './types.js';

/** An attempt that failed before anything was sent, with the reason as its error. */
export function failedBeforeStart(reason: string, at = new Date()): Attempt {
  return {
    hasErrors: true,
    hasFailures: false,
    isDegraded: false,
    overMaxResponseTime: false,
    responseTime: 0,
    startedAt: at,
    stoppedAt: at,
    networkError: false,
    error: reason,
    detail: { errorResult: { requestError: reason } },
  };
}

/** An executor for a kind this build cannot run: every run fails with a message saying why. */
export function unsupported(kind: CheckType, reason: string): Executor {
  const message = `${kind} checks cannot run here: ${reason}`;
  return async () => failedBeforeStart(message);
}
