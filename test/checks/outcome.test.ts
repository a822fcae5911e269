import { describe, expect, it } from 'vitest';
import {
  type RetryStrategy,
  retryPolicyOf,
  retryStrategySchema,
  shouldRetry,
  statusOf,
} from '../../src/checks/index.js';

const ok = { hasErrors: false, hasFailures: false, isDegraded: false, overMaxResponseTime: false };

describe('status of a run', () => {
  it.each([
    [ok, false, 'PASSED'],
    [{ ...ok, isDegraded: true }, false, 'DEGRADED'],
    [{ ...ok, hasFailures: true }, false, 'FAILED'],
    [{ ...ok, hasErrors: true }, false, 'FAILED'],
    [{ ...ok, overMaxResponseTime: true, isDegraded: true }, false, 'FAILED'],
    [ok, true, 'FAILED'],
    [{ ...ok, hasFailures: true }, true, 'PASSED'],
    [{ ...ok, isDegraded: true }, true, 'DEGRADED'],
    [{ ...ok, timedOut: true, hasErrors: true }, false, 'TIMED_OUT'],
    [{ ...ok, timedOut: true }, true, 'TIMED_OUT'],
    [{ ...ok, cancelled: true }, false, 'CANCELLED'],
  ] as const)('%j with shouldFail %s is %s', (flags, shouldFail, expected) => {
    expect(statusOf(flags, shouldFail)).toBe(expected);
  });
});

describe('retry policy', () => {
  const strategy = (type: RetryStrategy['type'], extra: Partial<RetryStrategy> = {}) => ({
    retryStrategy: retryStrategySchema.parse({ type, baseBackoffSeconds: 10, maxRetries: 3, ...extra }),
  });

  it('waits base×attempt, base^attempt or base', () => {
    expect([1, 2, 3].map(retryPolicyOf(strategy('LINEAR')).delayMs)).toEqual([10_000, 20_000, 30_000]);
    expect([1, 2, 3].map(retryPolicyOf(strategy('EXPONENTIAL')).delayMs)).toEqual([
      10_000, 100_000, 1_000_000,
    ]);
    expect([1, 2, 3].map(retryPolicyOf(strategy('FIXED')).delayMs)).toEqual([10_000, 10_000, 10_000]);
  });

  it('retries up to maxRetries, once for SINGLE_RETRY, within maxDuration', () => {
    const linear = retryPolicyOf(strategy('LINEAR'));
    expect(shouldRetry(linear, 2, 0, { networkError: false })).toBe(true);
    expect(shouldRetry(linear, 3, 0, { networkError: false })).toBe(false);
    expect(shouldRetry(retryPolicyOf(strategy('SINGLE_RETRY')), 1, 0, { networkError: false })).toBe(false);
    const short = retryPolicyOf(strategy('FIXED', { maxDurationSeconds: 15 }));
    expect(shouldRetry(short, 0, 4_000, { networkError: false })).toBe(true);
    expect(shouldRetry(short, 0, 6_000, { networkError: false })).toBe(false);
  });

  it('retries only network errors with onlyOn NETWORK_ERROR', () => {
    const policy = retryPolicyOf(strategy('FIXED', { onlyOn: ['NETWORK_ERROR'] }));
    expect(shouldRetry(policy, 0, 0, { networkError: false })).toBe(false);
    expect(shouldRetry(policy, 0, 0, { networkError: true })).toBe(true);
  });

  it('treats doubleCheck without a strategy as one retry at once, and nothing as no retry', () => {
    const double = retryPolicyOf({ doubleCheck: true, retryStrategy: null });
    expect(double.maxRetries).toBe(1);
    expect(double.delayMs(1)).toBe(0);
    expect(retryPolicyOf({ doubleCheck: false }).maxRetries).toBe(0);
  });
});
