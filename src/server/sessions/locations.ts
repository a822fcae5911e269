import type { Db } from '../store/db.js';

/** Where a check that names no location at all runs when the account has no private location. */
export const DEFAULT_LOCATION = 'us-east-1';

/** Where a check that names no location runs: the account's private locations, else DEFAULT_LOCATION. */
export async function fallbackLocations(db: Db, accountId: string): Promise<string[]> {
  const rows = await db.query<{ slug_name: string }>(
    'SELECT slug_name FROM private_locations WHERE account_id = $1 ORDER BY created_at, slug_name',
    [accountId],
  );
  return rows.length > 0 ? rows.map((r) => r.slug_name) : [DEFAULT_LOCATION];
}

/**
 * The locations of a check, or, when it names none, the account's private locations (a self-hosted account
 * serves its checks there), or DEFAULT_LOCATION. `fallback` may answer from memory (a tick of many checks).
 */
export async function locationsOrFallback(
  db: Db,
  accountId: string,
  locations: string[],
  fallback: (db: Db, accountId: string) => Promise<string[]> = fallbackLocations,
): Promise<string[]> {
  return locations.length > 0 ? locations : fallback(db, accountId);
}

/** The locations of one session: all at once for runParallel, else the one whose turn it is. */
export function sessionLocations(locations: readonly string[], runParallel: boolean, turn: number): string[] {
  if (runParallel || locations.length <= 1) return [...locations];
  const index = ((turn % locations.length) + locations.length) % locations.length;
  return [locations[index] as string];
}

/** Where a retry runs: the same location (sameRegion), else the next of the check's locations. */
export function retryLocation(current: string, candidates: readonly string[], sameRegion: boolean): string {
  if (sameRegion || candidates.length <= 1) return current;
  const index = candidates.indexOf(current);
  return candidates[(index + 1) % candidates.length] as string;
}

/** Of the candidates, the first location with a connected agent (a triggered run should run soon), else the first. */
export async function preferredLocation(
  db: Db,
  accountId: string,
  candidates: readonly string[],
  now: Date,
  freshMs: number,
): Promise<string> {
  const rows = await db.query<{ slug_name: string }>(
    `SELECT DISTINCT l.slug_name FROM agents a JOIN private_locations l ON l.id = a.private_location_id
      WHERE a.account_id = $1 AND a.connected AND a.last_seen > $2`,
    [accountId, new Date(now.getTime() - freshMs)],
  );
  const live = new Set(rows.map((r) => r.slug_name));
  return candidates.find((location) => live.has(location)) ?? (candidates[0] as string);
}
