import type { Db } from '../store/db.js';
import { ResourceStore } from '../store/resources.js';
import { isInProgress } from './occurrences.js';
import type { MaintenanceWindowDocument } from './schema.js';

/** What the windows in progress now do to the checks and groups of their tags. */
export interface ActiveMaintenance {
  /** Tags whose checks' scheduled runs pause. */
  pausedTags: Set<string>;
  /** Tags whose checks' alerts are silenced. */
  silencedTags: Set<string>;
}

export const maintenanceStore = (db: Db) =>
  new ResourceStore<MaintenanceWindowDocument>(db, 'maintenance-window');

/** The account's maintenance windows, to ask `activeAt` about several moments with one read. */
export async function maintenanceWindows(db: Db, accountId: string): Promise<MaintenanceWindowDocument[]> {
  return (await maintenanceStore(db).list(accountId)).map((row) => row.document);
}

/** What the windows in progress at `now` do. */
export function activeAt(windows: readonly MaintenanceWindowDocument[], now: Date): ActiveMaintenance {
  const active: ActiveMaintenance = { pausedTags: new Set(), silencedTags: new Set() };
  for (const window of windows) {
    if (!isInProgress(window, now)) continue;
    for (const tag of window.tags) {
      if (window.pauseRuns !== false) active.pausedTags.add(tag);
      if (window.silenceAlerts !== false) active.silencedTags.add(tag);
    }
  }
  return active;
}

/** The account's windows in progress at `now`. */
export async function activeMaintenance(db: Db, accountId: string, now: Date): Promise<ActiveMaintenance> {
  return activeAt(await maintenanceWindows(db, accountId), now);
}

/** Whether any of the tags (a check's own and its group's) is among `tags`. */
export function matchesAny(tags: Iterable<string>, among: Set<string>): boolean {
  for (const tag of tags) if (among.has(tag)) return true;
  return false;
}

/** A check's tags for maintenance windows: its own and its group's. */
export function maintenanceTagsOf(check: { tags: string[]; group: { tags?: string[] } | null }): string[] {
  return [...check.tags, ...(check.group?.tags ?? [])];
}
