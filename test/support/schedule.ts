import { subMinutePhaseMs } from '../../src/checks/schedule.js';

/**
 * The times of a sub-minute check, which starts at a phase of its own (src/checks/schedule.ts): maps a time written
 * as if the check started on multiples of its period since the epoch to the same time in the check's own phase.
 */
export function inPhaseOf(checkId: string, periodMs = 10_000): (iso: string) => string {
  const phase = subMinutePhaseMs(checkId, periodMs);
  return (iso) => new Date(Date.parse(iso) + phase).toISOString();
}
