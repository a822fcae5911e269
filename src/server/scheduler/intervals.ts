import { frequencyOffsetBounds } from '../../checks/index.js';

/** When a check runs: every `periodMs`, at epoch multiples of the period shifted by `shiftMs`. */
export interface Schedule {
  periodMs: number;
  shiftMs: number;
}

/** One interval of a schedule: its number since the epoch, and when it starts. */
export interface Interval {
  index: number;
  start: Date;
}

/**
 * The schedule of a check (docs/control-plane.md, Scheduling):
 * - frequency 0: every frequencyOffset seconds (10, 20 or 30);
 * - otherwise every `frequency` minutes, shifted into the period by frequencyOffset, counted in steps of
 *   period / (the largest offset allowed): 6 s for frequencies up to 60 minutes, 1 hour above. So the allowed
 *   offsets spread checks evenly over their whole period.
 */
export function scheduleOf(frequency: number, frequencyOffset: number | undefined): Schedule {
  if (frequency === 0) return { periodMs: (frequencyOffset ?? 10) * 1000, shiftMs: 0 };
  const periodMs = frequency * 60_000;
  if (frequencyOffset === undefined) return { periodMs, shiftMs: 0 };
  const steps = frequencyOffsetBounds(frequency).max;
  const stepMs = Math.floor(periodMs / steps);
  return { periodMs, shiftMs: ((frequencyOffset % steps) * stepMs) % periodMs };
}

/** The interval that contains `now`. */
export function intervalAt(schedule: Schedule, now: Date): Interval {
  const index = Math.floor((now.getTime() - schedule.shiftMs) / schedule.periodMs);
  return { index, start: new Date(index * schedule.periodMs + schedule.shiftMs) };
}
