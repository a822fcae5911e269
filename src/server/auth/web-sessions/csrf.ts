import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyRequest } from 'fastify';
import { ApiError } from '../../common/errors.js';

export const CSRF_HEADER = 'x-csrf-token';

/** Methods that change something: a cookie session must prove with the header that its own page sent them. */
const UNSAFE_METHODS = new Set(['POST', 'PUT', 'PATCH', 'DELETE']);

const digest = (value: string) => createHash('sha256').update(value).digest();

/** Compares digests, which have one length, so neither the token's bytes nor its length leak through timing. */
function sameToken(sent: unknown, expected: string): boolean {
  return typeof sent === 'string' && timingSafeEqual(digest(sent), digest(expected));
}

/** Refuses (403) an unsafe request of a cookie session without the session's CSRF token in `x-csrf-token`. */
export function requireCsrfToken(request: FastifyRequest, csrfToken: string): void {
  if (!UNSAFE_METHODS.has(request.method)) return;
  if (!sameToken(request.headers[CSRF_HEADER], csrfToken)) {
    throw new ApiError(403, `Missing or wrong ${CSRF_HEADER}`);
  }
}
