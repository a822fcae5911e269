import pino from 'pino';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { Loop } from '../../../src/server/common/loop.js';

const log = pino({ level: 'silent' });

describe('a loop that sleeps while nothing can happen', () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it('waits as long as it is told after each run, never less than its interval, and hurry ends the sleep', async () => {
    let runs = 0;
    let sleepMs = 5_000;
    const loop = new Loop(
      'test',
      100,
      async () => {
        runs += 1;
      },
      log,
      () => sleepMs,
    );
    loop.start();
    await vi.advanceTimersByTimeAsync(0);
    expect(runs).toBe(1);
    // A sleep ends a millisecond after it was told to.
    await vi.advanceTimersByTimeAsync(5_000);
    expect(runs).toBe(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(2);

    // Something changed: the sleep ends one interval from now, not 5 s from the last run.
    await vi.advanceTimersByTimeAsync(1_000);
    loop.hurry();
    await vi.advanceTimersByTimeAsync(99);
    expect(runs).toBe(2);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(3);

    // A wait shorter than the interval is the interval; a hurry then changes nothing.
    sleepMs = 10;
    await vi.advanceTimersByTimeAsync(5_001);
    expect(runs).toBe(4);
    loop.hurry();
    await vi.advanceTimersByTimeAsync(99);
    expect(runs).toBe(4);
    await vi.advanceTimersByTimeAsync(1);
    expect(runs).toBe(5);
    await loop.stop();
    loop.hurry();
    await vi.advanceTimersByTimeAsync(10_000);
    expect(runs).toBe(5);
  });
});
