import { randomBytes } from 'node:crypto';
import type { Db } from '../store/db.js';
import { findResourceAnyAccount, ResourceStore } from '../store/resources.js';

/**
 * The secret of a heartbeat check's ping URL (`/heartbeats/{token}`), kept beside the check so its definition
 * stays exactly the check model.
 */
interface PingTokenDocument {
  checkId: string;
}

const store = (db: Db) => new ResourceStore<PingTokenDocument>(db, 'heartbeat-token');

export async function createPingToken(db: Db, accountId: string, checkId: string): Promise<string> {
  const token = randomBytes(18).toString('base64url');
  await store(db).create(accountId, token, { checkId });
  return token;
}

/** Ping tokens of an account, by check id. */
export async function pingTokensByCheck(db: Db, accountId: string): Promise<Map<string, string>> {
  return new Map((await store(db).list(accountId)).map((r) => [r.document.checkId, r.id]));
}

export async function checkOfPingToken(
  db: Db,
  token: string,
): Promise<{ accountId: string; checkId: string } | null> {
  const found = await findResourceAnyAccount<PingTokenDocument>(db, 'heartbeat-token', token);
  return found ? { accountId: found.accountId, checkId: found.document.checkId } : null;
}

export async function deletePingTokens(db: Db, accountId: string, checkId: string): Promise<void> {
  await store(db).deleteWhere(accountId, { checkId });
}
