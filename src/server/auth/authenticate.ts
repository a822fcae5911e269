import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors.js';
import type { Clock } from '../queue/clock.js';
import type { Db } from '../store/db.js';
import type { AuthContext } from './context.js';
import { hashKey } from './keys.js';
import { clearedSessionCookie } from './web-sessions/cookie.js';
import { requireCsrfToken } from './web-sessions/csrf.js';
import { authOfSession, requestSession } from './web-sessions/from-request.js';

/** What authentication needs besides the store: the server's clock (session expiry) and its public URL (cookies). */
export interface AuthSettings {
  clock: Clock;
  publicUrl: string;
}

interface KeyRow {
  id: string;
  account_id: string;
  kind: 'user' | 'location';
  private_location_id: string | null;
  slug_name: string | null;
}

export function bearerOf(request: FastifyRequest): string | null {
  const header = request.headers.authorization;
  if (typeof header !== 'string') return null;
  const match = /^Bearer\s+(\S+)\s*$/i.exec(header);
  return match?.[1] ?? null;
}

/** Finds an active key by its hash. */
export async function lookupKey(db: Db, key: string): Promise<AuthContext | null> {
  const [row] = await db.query<KeyRow>(
    `SELECT k.id, k.account_id, k.kind, k.private_location_id, l.slug_name
       FROM api_keys k LEFT JOIN private_locations l ON l.id = k.private_location_id
      WHERE k.key_hash = $1 AND k.revoked_at IS NULL`,
    [hashKey(key)],
  );
  if (!row) return null;
  return {
    kind: row.kind,
    accountId: row.account_id,
    keyId: row.id,
    privateLocationId: row.private_location_id,
    locationSlug: row.slug_name,
  };
}

const MISSING_CREDENTIALS = 'Missing credentials: send Authorization: Bearer <API_KEY>';

/**
 * Checks the bearer key and the account header of every request to a route that needs them:
 * 401 without valid credentials, 403 when the key may not act here (another account, or an agent key on the API).
 * Without a bearer key, the web app's session cookie opens the user routes (docs/web-app.md).
 */
export async function authenticate(
  db: Db,
  request: FastifyRequest,
  needed: AuthContext['kind'],
  settings: AuthSettings,
  accountOptional = false,
): Promise<AuthContext> {
  const key = bearerOf(request);
  if (!key) return authenticateBySession(db, request, needed, settings);
  const auth = await lookupKey(db, key);
  if (!auth) throw new ApiError(401, 'Invalid or revoked API key', {}, { 'www-authenticate': 'Bearer' });
  const sent = request.headers['x-service-account'];
  const account = accountOptional && (sent === undefined || sent === '') ? auth.accountId : sent;
  if (typeof account !== 'string' || account === '') {
    throw new ApiError(401, 'Missing account: send x-service-account: <ACCOUNT_ID> with the API key');
  }
  if (account !== auth.accountId)
    throw new ApiError(403, 'This API key does not belong to the account in x-service-account');
  if (auth.kind !== needed) {
    throw new ApiError(
      403,
      auth.kind === 'location'
        ? 'Private-location keys open the agent routes only; use a user API key'
        : 'This route is for agents; use a private-location key',
    );
  }
  return auth;
}

/**
 * A request without a bearer key: a valid session cookie acts as its key's account, with no account header (the
 * session names it), and proves with `x-csrf-token` that the web app itself sent an unsafe request. Agent routes
 * never take cookies. A cookie that no longer opens anything is cleared with the 401.
 */
async function authenticateBySession(
  db: Db,
  request: FastifyRequest,
  needed: AuthContext['kind'],
  { clock, publicUrl }: AuthSettings,
): Promise<AuthContext> {
  const cookie =
    needed === 'user' ? await requestSession(db, request, clock()) : ({ state: 'none' } as const);
  if (cookie.state === 'valid') {
    requireCsrfToken(request, cookie.session.csrfToken);
    return authOfSession(cookie.session);
  }
  throw new ApiError(
    401,
    MISSING_CREDENTIALS,
    {},
    {
      'www-authenticate': 'Bearer',
      ...(cookie.state === 'ended' ? { 'set-cookie': clearedSessionCookie(request, publicUrl) } : {}),
    },
  );
}

/** Installs authentication on every route by its `config.auth`. */
export function registerAuth(app: FastifyInstance, db: Db, settings: AuthSettings): void {
  app.addHook('onRequest', async (request) => {
    const { auth: needed, accountOptional } = request.routeOptions.config;
    if (!needed || needed === 'none') return;
    request.auth = await authenticate(db, request, needed, settings, accountOptional === true);
  });
}
