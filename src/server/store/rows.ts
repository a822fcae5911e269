/** Conversions of column values that differ between PGlite and pg (dates, bigints). */

/** An ISO date-time from a timestamptz column; null stays null. */
export function isoOrNull(value: unknown): string | null {
  if (value === null || value === undefined) return null;
  return value instanceof Date ? value.toISOString() : new Date(String(value)).toISOString();
}

export function iso(value: unknown): string {
  return isoOrNull(value) ?? new Date(0).toISOString();
}

/** A bigint column as a number (pg returns bigint as text). */
export function toNumber(value: unknown): number {
  return typeof value === 'number' ? value : Number(value);
}

/** A value for a jsonb parameter: always JSON text, since pg would send a JS array as a PostgreSQL array. */
export function jsonParam(value: unknown): string {
  return JSON.stringify(value);
}

/** The version byte that starts jsonb's binary input: the JSON text follows it. */
const JSONB_BINARY_VERSION = 1;

/**
 * `jsonParam` in jsonb's binary form (a version byte, then the JSON text as UTF-8), for the large batches every run
 * writes (its result, its run, its session). Both drivers send bytes as they are, where PGlite measures and encodes
 * a string in JavaScript a character at a time: at 3,000 checks that was about a twentieth of the server's CPU
 * (docs/control-plane.md, Capacity). Only for a parameter the SQL casts to `jsonb`: any other type would take the
 * version byte for data.
 */
export function jsonbParam(value: unknown): Uint8Array {
  const text = JSON.stringify(value);
  const bytes = Buffer.allocUnsafe(1 + Buffer.byteLength(text));
  bytes[0] = JSONB_BINARY_VERSION;
  bytes.write(text, 1);
  return bytes;
}
