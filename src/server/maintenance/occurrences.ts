import type { StoredResource } from '../store/resources.js';
import type { MaintenanceWindowDocument, RepeatUnit } from './schema.js';
import { type MaintenanceUpdate, updateKey } from './updates.js';

/** Occurrences looked at, at most: a daily window repeats for 27 years before this. */
export const MAX_OCCURRENCE = 10_000;

/** `date` moved by `count` units; months and years keep the day of month, or the month's last day when shorter. */
function addUnits(date: Date, unit: RepeatUnit, count: number): Date {
  const out = new Date(date.getTime());
  if (unit === 'DAY') out.setUTCDate(out.getUTCDate() + count);
  else if (unit === 'WEEK') out.setUTCDate(out.getUTCDate() + 7 * count);
  else {
    const day = out.getUTCDate();
    out.setUTCDate(1);
    out.setUTCMonth(out.getUTCMonth() + (unit === 'YEAR' ? 12 * count : count));
    const lastDay = new Date(Date.UTC(out.getUTCFullYear(), out.getUTCMonth() + 1, 0)).getUTCDate();
    out.setUTCDate(Math.min(day, lastDay));
  }
  return out;
}

/** Occurrence number `n` (0 is the first) of a window, or null when the window has no such occurrence. */
export function occurrence(
  window: MaintenanceWindowDocument,
  n: number,
): { startsAt: Date; endsAt: Date } | null {
  if (!Number.isInteger(n) || n < 0 || n > MAX_OCCURRENCE) return null;
  const startsAt = new Date(window.startsAt);
  const duration = new Date(window.endsAt).getTime() - startsAt.getTime();
  if (n > 0 && (!window.repeatUnit || !window.repeatInterval)) return null;
  const start =
    n === 0
      ? startsAt
      : addUnits(startsAt, window.repeatUnit as RepeatUnit, n * (window.repeatInterval as number));
  if (n > 0 && window.repeatEndsAt && start.getTime() > new Date(window.repeatEndsAt).getTime()) return null;
  return { startsAt: start, endsAt: new Date(start.getTime() + duration) };
}

function statusAt(span: { startsAt: Date; endsAt: Date }, now: Date) {
  if (now < span.startsAt) return 'SCHEDULED' as const;
  return now < span.endsAt ? ('IN_PROGRESS' as const) : ('COMPLETED' as const);
}

/** The updates posted to maintenances, by `updateKey` (src/server/maintenance/updates.ts). */
export type UpdatesByMaintenance = Map<
  string,
  (span: { startsAt: string; endsAt: string }) => MaintenanceUpdate[]
>;

/** The spec's Maintenance for occurrence `n`; its id is the occurrence number. */
export function maintenanceOf(
  window: StoredResource<MaintenanceWindowDocument>,
  n: number,
  now = new Date(),
  updates: UpdatesByMaintenance = new Map(),
) {
  const span = occurrence(window.document, n);
  if (!span) return null;
  const dates = { startsAt: span.startsAt.toISOString(), endsAt: span.endsAt.toISOString() };
  return {
    id: String(n),
    maintenanceWindowId: Number(window.id),
    ...dates,
    status: statusAt(span, now),
    created_at: window.created_at,
    updated_at: window.updated_at ?? window.created_at,
    updates: updates.get(updateKey(window.id, String(n)))?.(dates) ?? [],
  };
}

/** Up to `limit` occurrences that end after `from`, in order. */
export function maintenancesFrom(
  window: StoredResource<MaintenanceWindowDocument>,
  from: Date,
  limit: number,
  now = new Date(),
  updates: UpdatesByMaintenance = new Map(),
) {
  const out = [];
  for (let n = 0; n <= MAX_OCCURRENCE && out.length < limit; n++) {
    const m = maintenanceOf(window, n, now, updates);
    if (!m) break;
    if (new Date(m.endsAt) > from) out.push(m);
  }
  return out;
}

const DAY_MS = 86_400_000;
/** The longest a unit can be. */
const LONGEST_UNIT_MS: Record<RepeatUnit, number> = {
  DAY: DAY_MS,
  WEEK: 7 * DAY_MS,
  MONTH: 31 * DAY_MS,
  YEAR: 366 * DAY_MS,
};

/** Whether an occurrence of the window is in progress at `now`. */
export function isInProgress(window: MaintenanceWindowDocument, now: Date): boolean {
  const first = occurrence(window, 0);
  if (!first || now < first.startsAt) return false;
  if (now < first.endsAt) return true;
  if (!window.repeatUnit || !window.repeatInterval) return false;
  // The occurrence in progress, if any, started after now - duration; occurrences are at most the longest unit
  // apart, so its number is at least this.
  const longest = LONGEST_UNIT_MS[window.repeatUnit] * window.repeatInterval;
  const duration = first.endsAt.getTime() - first.startsAt.getTime();
  const from = Math.floor((now.getTime() - duration - first.startsAt.getTime()) / longest) - 1;
  for (let n = Math.max(0, from); n <= MAX_OCCURRENCE; n++) {
    const span = occurrence(window, n);
    if (!span || span.startsAt > now) return false;
    if (now < span.endsAt) return true;
  }
  return false;
}
