import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { lookupKey } from '../auth/authenticate.js';
import { clearedSessionCookie, setSessionCookie } from '../auth/web-sessions/cookie.js';
import { requireCsrfToken } from '../auth/web-sessions/csrf.js';
import { requestSession } from '../auth/web-sessions/from-request.js';
import {
  createWebSession,
  deleteWebSession,
  pruneExpiredWebSessions,
  type WebSession,
} from '../auth/web-sessions/store.js';
import { ApiError } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { parseOrThrow } from '../http/validation.js';

const signInBody = z.object({ apiKey: z.string().min(1) });

/** What the web app learns of its session: the token of its cookie stays out of reach of scripts. */
const sessionAnswer = ({ accountId, csrfToken, expiresAt }: WebSession) => ({
  accountId,
  csrfToken,
  expiresAt,
});

/**
 * Sign-in of the web app (docs/web-app.md): an API key exchanged for a session cookie, the session read back, and
 * sign-out. Not part of the public API (not in the OpenAPI document): they serve the web app's own pages.
 */
export function registerWebSessionRoutes(app: FastifyInstance, { db, runs, config }: ServerContext): void {
  const { publicUrl } = config;

  /** The request's valid session, or a 401 that also clears a cookie that no longer opens anything. */
  const sessionOrThrow = async (request: FastifyRequest) => {
    const cookie = await requestSession(db, request, runs.clock());
    if (cookie.state === 'valid') return cookie;
    throw new ApiError(
      401,
      'Not signed in: POST /app/session with an API key',
      {},
      cookie.state === 'ended' ? { 'set-cookie': clearedSessionCookie(request, publicUrl) } : {},
    );
  };
  const noStore = (reply: FastifyReply) => reply.header('cache-control', 'no-store');

  app.post('/app/session', { config: { auth: 'none', signIn: true } }, async (request, reply) => {
    const { apiKey } = parseOrThrow(signInBody, request.body ?? {}, 'body');
    const key = await lookupKey(db, apiKey);
    if (!key) throw new ApiError(401, 'Invalid or revoked API key');
    if (key.kind !== 'user') {
      throw new ApiError(403, 'Private-location keys cannot sign in; use a user API key');
    }
    const now = runs.clock();
    await pruneExpiredWebSessions(db, now);
    const session = await createWebSession(db, key, now);
    setSessionCookie(reply, session.token, publicUrl);
    return noStore(reply).code(201).send(sessionAnswer(session));
  });

  app.get('/app/session', { config: { auth: 'none' } }, async (request, reply) => {
    const { session } = await sessionOrThrow(request);
    return noStore(reply).send(sessionAnswer(session));
  });

  app.delete('/app/session', { config: { auth: 'none' } }, async (request, reply) => {
    const { token, session } = await sessionOrThrow(request);
    requireCsrfToken(request, session.csrfToken);
    await deleteWebSession(db, token);
    return reply.header('set-cookie', clearedSessionCookie(request, publicUrl)).code(204).send();
  });
}
