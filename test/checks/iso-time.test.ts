import { describe, expect, it } from 'vitest';
import { isoTime } from '../../src/checks/iso-time.js';

describe('isoTime', () => {
  it('writes what toISOString writes, for times within one second and across seconds, years and eras', () => {
    const times = [
      Date.UTC(2026, 11, 7, 15, 40, 0, 0),
      Date.UTC(2026, 11, 7, 15, 40, 0, 7),
      Date.UTC(2026, 11, 7, 15, 40, 0, 45),
      Date.UTC(2026, 11, 7, 15, 40, 0, 999),
      Date.UTC(2026, 11, 7, 15, 40, 1, 0),
      Date.UTC(2026, 11, 31, 23, 59, 59, 999),
      Date.UTC(2027, 0, 1, 0, 0, 0, 1),
      0,
      -1,
      -62198755200000, // year 0
      253402300800001, // year 10000, written +010000
      Date.now(),
    ];
    for (const time of times) {
      expect(isoTime(time)).toBe(new Date(time).toISOString());
      expect(isoTime(new Date(time))).toBe(new Date(time).toISOString());
    }
    // Back to an earlier second after a later one.
    expect(isoTime(times[0] as number)).toBe(new Date(times[0] as number).toISOString());
  });

  it('cuts a fraction of a millisecond as a Date does', () => {
    for (const time of [1_765_000_000_123.7, 0.5, -0.5, -1.5]) {
      expect(isoTime(time)).toBe(new Date(time).toISOString());
    }
  });

  it('refuses an invalid time as toISOString does', () => {
    expect(() => isoTime(Number.NaN)).toThrow(RangeError);
    expect(() => isoTime(new Date('not a date'))).toThrow(RangeError);
  });
});
