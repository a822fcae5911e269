import { fastifyCookie } from '@fastify/cookie';
import type { FastifyReply, FastifyRequest } from 'fastify';
import { SESSION_LIFETIME_MS } from './lifetime.js';

export const SESSION_COOKIE = 'vantage_session';

/** Secure when this request came over TLS, or when the server is published over https (TLS ends at a proxy). */
function secureFor(request: FastifyRequest, publicUrl: string): boolean {
  return request.protocol === 'https' || publicUrl.startsWith('https:');
}

function attributes(request: FastifyRequest, publicUrl: string, maxAgeSeconds: number) {
  return {
    httpOnly: true,
    sameSite: 'strict' as const,
    path: '/',
    maxAge: maxAgeSeconds,
    secure: secureFor(request, publicUrl),
  };
}

/** The session token the request's cookie carries, if any. */
export function sessionTokenOf(request: FastifyRequest): string | null {
  const token = request.cookies?.[SESSION_COOKIE];
  return token ? token : null;
}

/** Sets the cookie of a new session, to last as long as the session does. */
export function setSessionCookie(reply: FastifyReply, token: string, publicUrl: string): void {
  reply.setCookie(SESSION_COOKIE, token, attributes(reply.request, publicUrl, SESSION_LIFETIME_MS / 1000));
}

/** The Set-Cookie header value that makes the browser forget the session cookie. */
export function clearedSessionCookie(request: FastifyRequest, publicUrl: string): string {
  return fastifyCookie.serialize(SESSION_COOKIE, '', {
    ...attributes(request, publicUrl, 0),
    expires: new Date(0),
  });
}
