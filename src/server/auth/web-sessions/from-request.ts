import type { FastifyRequest } from 'fastify';
import type { Db } from '../../store/db.js';
import type { AuthContext } from '../context.js';
import { sessionTokenOf } from './cookie.js';
import { findValidWebSession, type WebSession } from './store.js';

/** What a request's session cookie says: no cookie, one that no longer opens anything, or a valid session. */
export type RequestSession =
  | { state: 'none' }
  | { state: 'ended' }
  | { state: 'valid'; token: string; session: WebSession };

export async function requestSession(db: Db, request: FastifyRequest, now: Date): Promise<RequestSession> {
  const token = sessionTokenOf(request);
  if (!token) return { state: 'none' };
  const session = await findValidWebSession(db, token, now);
  return session ? { state: 'valid', token, session } : { state: 'ended' };
}

/** Who a session acts as: its key's account, as a user key would. */
export function authOfSession(session: WebSession): AuthContext {
  return {
    kind: 'user',
    accountId: session.accountId,
    keyId: session.keyId,
    privateLocationId: null,
    locationSlug: null,
  };
}
