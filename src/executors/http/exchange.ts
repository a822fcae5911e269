import type { IncomingHttpHeaders } from 'node:http';
import type { ClientCertificate } from '../types.js';
import { type BodyRead, readBody } from './body.js';
import { clientCertificateFor } from './connection.js';
import type { JobLog } from './job-log.js';
import { type HopRequest, type RequestPlan, withoutHeaders } from './request.js';
import { HopTiming } from './timings.js';
import { openSocket } from './wire/connect.js';
import { requestHead } from './wire/head.js';
import { Http1Connection } from './wire/http1.js';

// Not `import … from 'node:http'`: an ES import of node:http loads Node's own copy of undici (≈ 0.1 s and 13 MB on
// Node.js 24) for its WebSocket getters.
const { STATUS_CODES } = process.getBuiltinModule('node:http');

/** Decoded body bytes an API check keeps; the rest is not read. */
const MAX_BODY_BYTES = 26_214_400;

/** A redirect's body read (and dropped) at most to keep its connection for the next request; past it, a new one. */
const REDIRECT_BODY_BYTES = 128 * 1024;

/** Redirects followed at most; one more fails the run. */
const MAX_REDIRECTS = 10;

export interface ReceivedResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  /** The body as read; null when it was not read (URL monitors) or reading it failed. */
  body: BodyRead | null;
}

/** What happened on the wire: every hop's timing, the last response received, and the error that ended it. */
export interface Exchange {
  hops: HopTiming[];
  response: ReceivedResponse | null;
  error: unknown;
}

interface ExchangeOptions {
  signal: AbortSignal;
  clientCertificates: readonly ClientCertificate[];
  log: JobLog;
}

function single(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

/**
 * Sends a plan's request and follows its redirects. A redirect to the same origin reuses the connection when the
 * server kept it open; no connection is used after the run, and one the server was asked to close is left to the
 * server to close (`Http1Connection.finish`). Never throws; the error is part of the result.
 */
export async function exchange(plan: RequestPlan, options: ExchangeOptions): Promise<Exchange> {
  const { signal, clientCertificates, log } = options;
  const hops: HopTiming[] = [];
  const trail = new RedirectTrail(plan.first);
  let connection: Http1Connection | undefined;
  let response: ReceivedResponse | null = null;

  const connectionFor = (url: URL, hop: HopTiming): Http1Connection => {
    if (connection?.origin === url.origin && connection.reusable) return connection;
    connection?.finish();
    const settings = {
      family: plan.family,
      skipSSL: plan.skipSSL,
      clientCertificate: clientCertificateFor(url.hostname, clientCertificates),
    };
    if (settings.clientCertificate) log.debug(`client certificate for ${settings.clientCertificate.host}`);
    connection = new Http1Connection(url.origin, openSocket(url, settings, hop, log), signal);
    return connection;
  };

  const send = async (request: HopRequest, hop: HopTiming) => {
    response = null;
    const body = request.body === null ? null : Buffer.from(request.body);
    const head = requestHead(request, body === null ? null : body.length);
    const sending = connectionFor(request.url, hop);
    log.info(`${request.method} ${request.url.href}`);
    const res = await sending.send(head, body, hop, request.method === 'HEAD');
    hop.tls = sending.tls();
    const statusText = res.statusText || STATUS_CODES[res.status] || '';
    response = { status: res.status, statusText, headers: res.headers, body: null };
    log.info(`HTTP ${res.status} ${statusText}`.trim());
    return { res, received: response };
  };

  try {
    let request = plan.first;
    for (;;) {
      const hop = new HopTiming();
      hops.push(hop);
      const { res, received } = await send(request, hop);
      const location = single(res.headers.location);
      if (plan.followRedirects && isRedirect(received.status) && location) {
        await res.body.dump(REDIRECT_BODY_BYTES);
        hop.end = hop.complete ?? performance.now();
        request = trail.follow(request, received.status, location);
        log.info(`following the redirect to ${request.url.href}`);
        continue;
      }
      if (!plan.readBody) {
        res.body.discard();
        hop.end = hop.response;
        return { hops, response: received, error: null };
      }
      received.body = await readBody(
        res.body.stream(),
        single(res.headers['content-encoding']),
        MAX_BODY_BYTES,
      );
      hop.end = received.body.truncated ? performance.now() : (hop.complete ?? performance.now());
      if (received.body.truncated) {
        log.warn(`body truncated: kept the first ${MAX_BODY_BYTES} bytes, the rest was not read`);
      }
      if (received.body.undecoded) {
        log.warn(`content-encoding ${res.headers['content-encoding']} is not decoded; body kept as sent`);
      }
      return { hops, response: received, error: null };
    }
  } catch (error) {
    return { hops, response, error };
  } finally {
    connection?.finish();
  }
}

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

function isRedirect(status: number): boolean {
  return REDIRECT_STATUSES.has(status);
}

/** A redirect that cannot be followed; the run fails with its message. */
class RedirectError extends Error {}

/** Remembers where a run has been, to stop loops and overly long chains. */
class RedirectTrail {
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
