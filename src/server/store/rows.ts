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
