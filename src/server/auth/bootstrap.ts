import { randomUUID } from 'node:crypto';
import type { Db } from '../store/db.js';
import { hashKey, keyHint, newUserKey } from './keys.js';

export interface Bootstrap {
  accountId: string;
  /** The admin key, when it was made now (it is shown once and never stored in clear). */
  apiKey: string | null;
}

/**
 * On a store with no account: creates one and its admin key (`VANTAGE_BOOTSTRAP_KEY` when given, so scripted
 * installs know the key in advance). On later starts: returns the first account and no key.
 */
export async function bootstrapAccount(db: Db, bootstrapKey?: string): Promise<Bootstrap> {
  return db.transaction(async (tx) => {
    await tx.query('SELECT pg_advisory_xact_lock(7261002)');
    const [existing] = await tx.query<{ id: string }>('SELECT id FROM accounts ORDER BY created_at LIMIT 1');
    if (existing) return { accountId: existing.id, apiKey: null };
    const accountId = randomUUID();
    await tx.query('INSERT INTO accounts (id, name) VALUES ($1, $2)', [accountId, 'Default account']);
    const apiKey = bootstrapKey || newUserKey();
    await tx.query(
      `INSERT INTO api_keys (id, account_id, kind, name, key_hash, key_hint) VALUES ($1, $2, 'user', 'admin', $3, $4)`,
      [randomUUID(), accountId, hashKey(apiKey), keyHint(apiKey)],
    );
    return { accountId, apiKey };
  });
}

/** Makes another user key for an account (e.g. for `vantage dev`, which cannot read back a hashed key). */
export async function createUserKey(db: Db, accountId: string, name: string): Promise<string> {
  const apiKey = newUserKey();
  await db.query(
    `INSERT INTO api_keys (id, account_id, kind, name, key_hash, key_hint) VALUES ($1, $2, 'user', $3, $4, $5)`,
    [randomUUID(), accountId, name, hashKey(apiKey), keyHint(apiKey)],
  );
  return apiKey;
}
