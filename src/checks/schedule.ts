import { createHash } from 'node:crypto';
import { frequencyOffsetBounds } from './shared.js';

/** Sub-minute checks start at a phase of their own within their period, a multiple of this. */
export const SUB_MINUTE_PHASE_STEP_MS = 100;

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
 * - frequency 0: every frequencyOffset seconds (10, 20 or 30), at a phase derived from the check's id
 *   (`subMinutePhaseMs`): the user cannot choose one, and thousands of such checks starting at the same instant
 *   would hit their targets and the agents of a location all at once;
 * - otherwise every `frequency` minutes, shifted into the period by frequencyOffset, counted in steps of
 *   period / (the largest offset allowed): 6 s for frequencies up to 60 minutes, 1 hour above. So the allowed
 *   offsets spread checks evenly over their whole period.
 */
export function scheduleOf(
  frequency: number,
  frequencyOffset: number | undefined,
  checkId: string,
): Schedule {
  if (frequency === 0) {
    const periodMs = (frequencyOffset ?? 10) * 1000;
    return { periodMs, shiftMs: subMinutePhaseMs(checkId, periodMs) };
  }
  const periodMs = frequency * 60_000;
  if (frequencyOffset === undefined) return { periodMs, shiftMs: 0 };
  const steps = frequencyOffsetBounds(frequency).max;
  const stepMs = Math.floor(periodMs / steps);
  return { periodMs, shiftMs: ((frequencyOffset % steps) * stepMs) % periodMs };
}

/**
 * Where in its period a sub-minute check starts: the first 32 bits of the MD5 of its id, modulo the period's
 * phase steps. Stable across restarts and replicas, and computable in SQL (migration 080).
 */
export function subMinutePhaseMs(checkId: string, periodMs: number): number {
  const hash = Number.parseInt(createHash('md5').update(checkId).digest('hex').slice(0, 8), 16);
  return (hash % Math.floor(periodMs / SUB_MINUTE_PHASE_STEP_MS)) * SUB_MINUTE_PHASE_STEP_MS;
}

/** The interval that contains `now`. */
export function intervalAt(schedule: Schedule, now: Date): Interval {
  const index = Math.floor((now.getTime() - schedule.shiftMs) / schedule.periodMs);
  return { index, start: new Date(index * schedule.periodMs + schedule.shiftMs) };
}

/**
 * When a check whose schedule changed is next due: at the first interval of the new schedule that starts after
 * the last interval claimed under the old one (the one before `nextDueAt`), so a change never runs an interval
 * twice; an interval that started in the past is due at once. Unchanged schedules keep their next-due time.
 */
export function nextDueAfterChange(old: Schedule, nextDueAt: Date, schedule: Schedule): Date {
  if (old.periodMs === schedule.periodMs && old.shiftMs === schedule.shiftMs) return nextDueAt;
  const lastClaimedStart = new Date(nextDueAt.getTime() - old.periodMs);
  const containing = intervalAt(schedule, lastClaimedStart);
  return new Date(containing.start.getTime() + schedule.periodMs);
}
