import type { RetryStrategy } from './shared.js';

/** The retry policy of a check, resolved from retryStrategy or the deprecated doubleCheck. */
export interface RetryPolicy {
  maxRetries: number;
  maxDurationMs: number;
  onlyOnNetworkError: boolean;
  sameRegion: boolean;
  /** Milliseconds to wait before retry number `retry` (1-based). */
  delayMs(retry: number): number;
}

const NO_RETRY: RetryPolicy = {
  maxRetries: 0,
  maxDurationMs: 0,
  onlyOnNetworkError: false,
  sameRegion: true,
  delayMs: () => 0,
};

export function retryPolicyOf(check: {
  retryStrategy?: RetryStrategy | null;
  doubleCheck?: boolean;
}): RetryPolicy {
  const strategy = check.retryStrategy;
  if (!strategy) {
    // doubleCheck without a strategy: one retry at once.
    return check.doubleCheck ? { ...NO_RETRY, maxRetries: 1, maxDurationMs: 600_000 } : NO_RETRY;
  }
  const base = strategy.baseBackoffSeconds;
  const seconds = (retry: number): number => {
    switch (strategy.type) {
      case 'LINEAR':
        return base * retry;
      case 'EXPONENTIAL':
        return base ** retry;
      default:
        return base;
    }
  };
  return {
    maxRetries: strategy.type === 'SINGLE_RETRY' ? 1 : strategy.maxRetries,
    maxDurationMs: strategy.maxDurationSeconds * 1000,
    onlyOnNetworkError: strategy.onlyOn.includes('NETWORK_ERROR'),
    sameRegion: strategy.sameRegion,
    delayMs: (retry) => seconds(retry) * 1000,
  };
}

/**
 * Whether to retry after a failed attempt: retries left, the wait fits in maxDuration
 * (counted from the first attempt's start), and the failure is of a kind the policy retries.
 */
export function shouldRetry(
  policy: RetryPolicy,
  retriesDone: number,
  elapsedMs: number,
  failure: { networkError: boolean; permanentError?: boolean },
): boolean {
  if (retriesDone >= policy.maxRetries || failure.permanentError) return false;
  if (policy.onlyOnNetworkError && !failure.networkError) return false;
  return elapsedMs + policy.delayMs(retriesDone + 1) <= policy.maxDurationMs;
}
