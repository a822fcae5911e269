import { describe, expect, it } from 'vitest';
import { Backoff } from '../../src/agent/connection/backoff.js';

describe('reconnect back-off', () => {
  it('waits a random time up to a ceiling that doubles from the base to the maximum (full jitter)', () => {
    const highest = new Backoff(1000, 60_000, () => 1);
    expect(Array.from({ length: 9 }, () => highest.next())).toEqual([
      1000, 2000, 4000, 8000, 16_000, 32_000, 60_000, 60_000, 60_000,
    ]);
    const lowest = new Backoff(1000, 60_000, () => 0);
    expect(lowest.next()).toBe(0);
    const random = new Backoff(1000, 60_000);
    for (let i = 0; i < 50; i++) {
      const wait = random.next();
      expect(wait).toBeGreaterThanOrEqual(0);
      expect(wait).toBeLessThanOrEqual(60_000);
    }
  });

  it('starts again from the base after a success', () => {
    const backoff = new Backoff(1000, 60_000, () => 1);
    backoff.next();
    backoff.next();
    backoff.reset();
    expect(backoff.next()).toBe(1000);
  });
});
