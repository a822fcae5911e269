import { randomUUID } from 'node:crypto';
import { hashKey, keyHint, newLocationKey } from '../auth/keys.js';
import { conflict } from '../common/errors.js';
import type { Db } from '../store/db.js';

/** A location has at most this many active keys, so one can be rotated while the other works. */
export const MAX_ACTIVE_KEYS = 2;

export interface PrivateLocationRow {
  id: string;
  account_id: string;
  name: string;
  slug_name: string;
  icon: string | null;
  proxy_url: string | null;
  created_at: Date;
  updated_at: Date | null;
}

export interface KeyRow {
  id: string;
  key_hint: string;
  created_at: Date;
}

/** A key as made: the only time its secret is known. */
export interface NewKey extends KeyRow {
  rawKey: string;
}

export interface NewLocation {
  name: string;
  slugName: string;
  icon?: string | null | undefined;
  proxyUrl?: string | null | undefined;
}

/** Makes a private location with its first key; 409 when the account already has the slug. */
export async function createPrivateLocation(
  db: Db,
  accountId: string,
  input: NewLocation,
  now: Date,
): Promise<{ location: PrivateLocationRow; key: NewKey }> {
  return db.transaction(async (tx) => {
    const [location] = await tx.query<PrivateLocationRow>(
      `INSERT INTO private_locations (id, account_id, name, slug_name, icon, proxy_url, created_at)
       VALUES ($1, $2, $3, $4, $5, $6, $7)
       ON CONFLICT (account_id, slug_name) DO NOTHING RETURNING *`,
      [randomUUID(), accountId, input.name, input.slugName, input.icon ?? null, input.proxyUrl ?? null, now],
    );
    if (!location) {
      throw conflict(`A private location with slugName ${JSON.stringify(input.slugName)} already exists`, {
        slugName: input.slugName,
      });
    }
    return { location, key: await insertKey(tx, location, now) };
  });
}

async function insertKey(tx: Db, location: PrivateLocationRow, now: Date): Promise<NewKey> {
  const rawKey = newLocationKey(location.account_id, location.slug_name);
  const [row] = await tx.query<KeyRow>(
    `INSERT INTO api_keys (id, account_id, kind, private_location_id, name, key_hash, key_hint, created_at)
     VALUES ($1, $2, 'location', $3, $4, $5, $6, $7) RETURNING id, key_hint, created_at`,
    [
      randomUUID(),
      location.account_id,
      location.id,
      location.slug_name,
      hashKey(rawKey),
      keyHint(rawKey),
      now,
    ],
  );
  return { ...(row as KeyRow), rawKey };
}

/** A new key for a location; 409 when it already has two active keys. */
export async function addKey(
  db: Db,
  accountId: string,
  locationId: string,
  now: Date,
): Promise<NewKey | null> {
  return db.transaction(async (tx) => {
    const [location] = await tx.query<PrivateLocationRow>(
      'SELECT * FROM private_locations WHERE id = $1 AND account_id = $2 FOR UPDATE',
      [locationId, accountId],
    );
    if (!location) return null;
    if ((await activeKeys(tx, locationId)).length >= MAX_ACTIVE_KEYS) {
      throw conflict(
        `A private location has at most ${MAX_ACTIVE_KEYS} active keys: revoke one before making another`,
        { privateLocationId: locationId },
      );
    }
    return insertKey(tx, location, now);
  });
}

/** Revokes a key; returns false when the location has no such active key. */
export async function revokeKey(
  db: Db,
  accountId: string,
  locationId: string,
  keyId: string,
  now: Date,
): Promise<boolean> {
  const rows = await db.query(
    `UPDATE api_keys SET revoked_at = $4
      WHERE id = $1 AND private_location_id = $2 AND account_id = $3 AND kind = 'location' AND revoked_at IS NULL
      RETURNING id`,
    [keyId, locationId, accountId, now],
  );
  return rows.length > 0;
}

export async function activeKeys(db: Db, locationId: string): Promise<KeyRow[]> {
  return db.query<KeyRow>(
    `SELECT id, key_hint, created_at FROM api_keys
      WHERE private_location_id = $1 AND kind = 'location' AND revoked_at IS NULL ORDER BY created_at, id`,
    [locationId],
  );
}

export async function listPrivateLocations(db: Db, accountId: string): Promise<PrivateLocationRow[]> {
  return db.query<PrivateLocationRow>(
    'SELECT * FROM private_locations WHERE account_id = $1 ORDER BY created_at, slug_name',
    [accountId],
  );
}

export async function getPrivateLocation(
  db: Db,
  accountId: string,
  id: string,
): Promise<PrivateLocationRow | null> {
  const [row] = await db.query<PrivateLocationRow>(
    'SELECT * FROM private_locations WHERE id = $1 AND account_id = $2',
    [id, accountId],
  );
  return row ?? null;
}

/** Deletes a location and its keys; returns the ids of the keys that were active, or null when none such. */
export async function deletePrivateLocation(db: Db, accountId: string, id: string): Promise<string[] | null> {
  return db.transaction(async (tx) => {
    const keys = await activeKeys(tx, id);
    const rows = await tx.query(
      'DELETE FROM private_locations WHERE id = $1 AND account_id = $2 RETURNING id',
      [id, accountId],
    );
    return rows.length > 0 ? keys.map((k) => k.id) : null;
  });
}

/** Checks and groups that name the location's slug in privateLocations (Checkly: check/group assignments). */
export async function assignmentsOf(
  db: Db,
  location: PrivateLocationRow,
): Promise<{ checkIds: string[]; groupIds: number[] }> {
  const checks = await db.query<{ id: string }>(
    `SELECT id FROM checks WHERE account_id = $1 AND definition->'privateLocations' @> $2::jsonb ORDER BY created_at`,
    [location.account_id, JSON.stringify([location.slug_name])],
  );
  const groups = await db.query<{ id: number | string }>(
    `SELECT id FROM check_groups WHERE account_id = $1 AND definition->'privateLocations' @> $2::jsonb ORDER BY id`,
    [location.account_id, JSON.stringify([location.slug_name])],
  );
  return { checkIds: checks.map((c) => c.id), groupIds: groups.map((g) => Number(g.id)) };
}
