import { withoutHeaders } from './headers.js';
import { MAX_REDIRECTS } from './limits.js';
import type { HopRequest } from './request-plan.js';

const REDIRECT_STATUSES = new Set([301, 302, 303, 307, 308]);

/** Headers that describe a body, dropped when a redirect turns the request into a GET. */
const BODY_HEADERS = [
  'content-type',
  'content-length',
  'content-encoding',
  'content-language',
  'content-location',
];

/** Headers that must not follow a redirect to another origin (as browsers do), nor name the old host. */
const ORIGIN_BOUND_HEADERS = ['authorization', 'proxy-authorization', 'cookie', 'host'];

export function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** A redirect that cannot be followed; the run fails with its message. */
export class RedirectError extends Error {}

/** Remembers where a run has been, to stop loops and overly long chains. */
export class RedirectTrail {
  private readonly seen = new Set<string>();
  private followed = 0;

  constructor(first: HopRequest) {
    this.seen.add(keyOf(first));
  }

  /** The request a redirect leads to; throws RedirectError for a loop or an 11th hop. */
  follow(from: HopRequest, status: number, location: string): HopRequest {
    const next = redirectedRequest(from, status, location);
    if (this.followed === MAX_REDIRECTS) {
      throw new RedirectError(`too many redirects: more than ${MAX_REDIRECTS} (next: ${next.url.href})`);
    }
    const key = keyOf(next);
    if (this.seen.has(key)) throw new RedirectError(`redirect loop: ${key} was already requested`);
    this.seen.add(key);
    this.followed += 1;
    return next;
  }
}

function keyOf(request: HopRequest): string {
  return `${request.method} ${request.url.href}`;
}

/** 303, and 301/302 after a POST, become a GET without body, as browsers do; 307/308 keep both. */
function redirectedRequest(from: HopRequest, status: number, location: string): HopRequest {
  let url: URL;
  try {
    url = new URL(location, from.url);
  } catch {
    throw new RedirectError(`invalid redirect location: ${location}`);
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new RedirectError(`redirect to an unsupported scheme: ${url.href}`);
  }
  const becomesGet =
    (status === 303 && from.method !== 'HEAD') ||
    ((status === 301 || status === 302) && from.method === 'POST');
  let headers = becomesGet ? withoutHeaders(from.headers, BODY_HEADERS) : from.headers;
  if (url.origin !== from.url.origin) headers = withoutHeaders(headers, ORIGIN_BOUND_HEADERS);
  return {
    method: becomesGet ? 'GET' : from.method,
    url,
    headers,
    body: becomesGet ? null : from.body,
  };
}
