import { randomBytes } from 'node:crypto';
import type { Db } from '../../store/db.js';
import { iso } from '../../store/rows.js';
import type { AuthContext } from '../context.js';
import { hashKey } from '../keys.js';
import { LAST_SEEN_RESOLUTION_MS, PRUNE_BATCH, SESSION_IDLE_MS, SESSION_LIFETIME_MS } from './lifetime.js';

/** A session of the web app as the routes see it; its token is only ever in the cookie. */
export interface WebSession {
  accountId: string;
  keyId: string;
  csrfToken: string;
  expiresAt: string;
}

/** A session just made: the token goes into the cookie and nowhere else. */
export interface NewWebSession extends WebSession {
  token: string;
}

interface SessionRow {
  account_id: string;
  key_id: string;
  csrf_token: string;
  expires_at: unknown;
  last_seen_at: unknown;
}

const secret = () => randomBytes(32).toString('base64url');

/** Opens a session for a user key; the store keeps the token's hash only. */
export async function createWebSession(
  db: Db,
  key: Pick<AuthContext, 'accountId' | 'keyId'>,
  now: Date,
): Promise<NewWebSession> {
  const token = secret();
  const csrfToken = secret();
  const expiresAt = new Date(now.getTime() + SESSION_LIFETIME_MS);
  await db.query(
    `INSERT INTO web_sessions (id_hash, account_id, key_id, csrf_token, created_at, expires_at, last_seen_at)
     VALUES ($1, $2, $3, $4, $5, $6, $5)`,
    [hashKey(token), key.accountId, key.keyId, csrfToken, now, expiresAt],
  );
  return { token, accountId: key.accountId, keyId: key.keyId, csrfToken, expiresAt: expiresAt.toISOString() };
}

/**
 * The session of a cookie's token while it lasts: not past its lifetime, used within the idle time, and its key
 * not revoked. Marks it seen (at most once per LAST_SEEN_RESOLUTION_MS).
 */
export async function findValidWebSession(db: Db, token: string, now: Date): Promise<WebSession | null> {
  const idHash = hashKey(token);
  const [row] = await db.query<SessionRow>(
    `SELECT s.account_id, s.key_id, s.csrf_token, s.expires_at, s.last_seen_at
       FROM web_sessions s JOIN api_keys k ON k.id = s.key_id
      WHERE s.id_hash = $1 AND k.revoked_at IS NULL AND k.kind = 'user'
        AND s.expires_at > $2 AND s.last_seen_at > $3`,
    [idHash, now, new Date(now.getTime() - SESSION_IDLE_MS)],
  );
  if (!row) return null;
  if (now.getTime() - Date.parse(iso(row.last_seen_at)) >= LAST_SEEN_RESOLUTION_MS) {
    await db.query('UPDATE web_sessions SET last_seen_at = $2 WHERE id_hash = $1', [idHash, now]);
  }
  return {
    accountId: row.account_id,
    keyId: row.key_id,
    csrfToken: row.csrf_token,
    expiresAt: iso(row.expires_at),
  };
}

export async function deleteWebSession(db: Db, token: string): Promise<void> {
  await db.query('DELETE FROM web_sessions WHERE id_hash = $1', [hashKey(token)]);
}

/**
 * Deletes up to PRUNE_BATCH sessions past their lifetime. Sessions that only idled out wait for their lifetime to
 * end: they open nothing meanwhile, and the lifetime's index finds them.
 */
export async function pruneExpiredWebSessions(db: Db, now: Date): Promise<void> {
  await db.query(
    `DELETE FROM web_sessions
      WHERE id_hash IN (SELECT id_hash FROM web_sessions WHERE expires_at <= $1 LIMIT $2)`,
    [now, PRUNE_BATCH],
  );
}
