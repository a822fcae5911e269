/** The periods of retention and rollups, all in UTC. */

export const HOUR_MS = 3_600_000;
export const DAY_MS = 86_400_000;

/** The start of the period of `ms` (an hour, a day) that holds `time`. */
export function periodStart(time: Date, ms: number): Date {
  return new Date(Math.floor(time.getTime() / ms) * ms);
}

/** A day as partition names spell it: YYYYMMDD. */
export function dayName(day: Date): string {
  return day.toISOString().slice(0, 10).replaceAll('-', '');
}

/** The day a YYYYMMDD name stands for. */
export function dayOfName(name: string): Date {
  return new Date(`${name.slice(0, 4)}-${name.slice(4, 6)}-${name.slice(6, 8)}T00:00:00.000Z`);
}

/** Thirteen months before `time`: how long rollups are kept. */
export function thirteenMonthsBefore(time: Date): Date {
  const before = new Date(time);
  before.setUTCMonth(before.getUTCMonth() - 13);
  return before;
}
