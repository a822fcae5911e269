import type { FastifyInstance, FastifyRequest } from 'fastify';
import { ApiError } from '../common/errors.js';
import { bearerOf } from './authenticate.js';
import { hashKey } from './keys.js';
import { sessionTokenOf } from './web-sessions/cookie.js';

export interface FailedAuthLimit {
  /** Failed authentications (invalid keys, unknown tokens) one source may have in a window. */
  max: number;
  windowMs: number;
}

/** Keys, tokens and sessions proven valid here lately: a blocked source may still use them (many users behind one NAT). */
const KNOWN_VALID_MAX = 10_000;

/** The API key in the body of a sign-in route (`config.signIn`), once the body is parsed. */
function signInKeyOf(request: FastifyRequest): string | null {
  if (!request.routeOptions.config.signIn) return null;
  const key = (request.body as { apiKey?: unknown } | undefined)?.apiKey;
  return typeof key === 'string' && key !== '' ? key : null;
}

/**
 * The credential a request carries: its bearer key, the key it signs in with, the token in the path of a keyless
 * route, or the web app's session cookie.
 */
export function credentialOf(request: FastifyRequest): string | null {
  const key = bearerOf(request) ?? signInKeyOf(request);
  if (key) return `key:${hashKey(key)}`;
  const token = (request.params as { token?: unknown } | undefined)?.token;
  if (typeof token === 'string' && token !== '') return `token:${hashKey(token)}`;
  const session = sessionTokenOf(request);
  return session ? `session:${hashKey(session)}` : null;
}

/** Whether an answer means the credential was wrong: 401, or a keyless route's 404 for an unknown token. */
function failedAuthentication(request: FastifyRequest, status: number): boolean {
  if (status === 401) return true;
  const keyless = request.routeOptions.config.auth === 'none';
  return keyless && status === 404 && credentialOf(request)?.startsWith('token:') === true;
}

/**
 * Limits failed authentication per source (`request.ip`; behind a proxy, see TRUST_PROXY): after `max` invalid keys
 * (as bearer or to sign in), unknown tokens or ended session cookies in a window, the source's requests are answered
 * 429 with Retry-After before any key is looked up — except those with a key, token or session proven valid lately,
 * so one source's guessing never locks out others.
 */
export function registerFailedAuthLimit(app: FastifyInstance, limit: FailedAuthLimit): void {
  const failures = new Map<string, { count: number; resetAt: number }>();
  const knownValid = new Set<string>();

  const windowOf = (source: string, now: number) => {
    let window = failures.get(source);
    if (!window || window.resetAt <= now) {
      if (failures.size > 100_000) for (const [s, w] of failures) if (w.resetAt <= now) failures.delete(s);
      window = { count: 0, resetAt: now + limit.windowMs };
      failures.set(source, window);
    }
    return window;
  };

  const refuseBlockedSource = (request: FastifyRequest) => {
    const credential = credentialOf(request);
    if (!credential || knownValid.has(credential)) return;
    const now = Date.now();
    const window = failures.get(request.ip);
    if (!window || window.resetAt <= now || window.count < limit.max) return;
    const seconds = Math.ceil((window.resetAt - now) / 1000);
    throw new ApiError(
      429,
      `Too many failed authentications from this address: ${limit.max} per ${Math.round(limit.windowMs / 1000)} s; retry in ${seconds} s`,
      { retryAfterSeconds: seconds },
      { 'retry-after': String(seconds) },
    );
  };

  app.addHook('onRequest', async (request) => {
    if (!request.routeOptions.config.signIn) refuseBlockedSource(request);
  });
  // A sign-in's key is in its body, which is parsed after onRequest.
  app.addHook('preValidation', async (request) => {
    if (request.routeOptions.config.signIn) refuseBlockedSource(request);
  });

  app.addHook('onResponse', async (request, reply) => {
    const credential = credentialOf(request);
    if (!credential) return;
    if (failedAuthentication(request, reply.statusCode)) {
      windowOf(request.ip, Date.now()).count += 1;
    } else if (reply.statusCode < 400) {
      if (knownValid.size >= KNOWN_VALID_MAX) knownValid.clear();
      knownValid.add(credential);
    }
  });
}
