/** A session ends this long after sign-in, however busy it is. */
export const SESSION_LIFETIME_MS = 12 * 60 * 60_000;

/** A session unused this long has ended (a browser left open over lunch keeps it; one left overnight does not). */
export const SESSION_IDLE_MS = 2 * 60 * 60_000;

/** `last_seen_at` is written at most this often per session, so a busy page does not write on every request. */
export const LAST_SEEN_RESOLUTION_MS = 60_000;

/** Expired sessions deleted at one sign-in: the rest wait for the next one. */
export const PRUNE_BATCH = 100;
