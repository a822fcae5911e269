import type { IncomingHttpHeaders } from 'node:http';
import { STATUS_CODES } from 'node:http';
import { Client } from 'undici';
import type { ClientCertificate } from '../types.js';
import { clientCertificateFor } from './client-certificates.js';
import { timedConnector } from './connector.js';
import { flatHeaders } from './headers.js';
import type { JobLog } from './job-log.js';
import { MAX_BODY_BYTES, SOCKET_TIMEOUT_MS } from './limits.js';
import { type BodyRead, discard, readBody } from './read-body.js';
import { isRedirect, RedirectTrail } from './redirects.js';
import type { HopRequest, RequestPlan } from './request-plan.js';
import { HopTiming } from './timings.js';

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

/** undici reports a socket closed by a TLS alert as 'other side closed'; the socket's error says why. */
function telling(error: unknown, hop: HopTiming): unknown {
  const code = (error as { code?: unknown } | null)?.code;
  const socketError = hop.connectionError;
  return code === 'UND_ERR_SOCKET' &&
    socketError &&
    !(socketError as { code?: string }).code?.startsWith('UND_')
    ? socketError
    : error;
}

/**
 * Sends a plan's request and follows its redirects. Each origin gets a client of its own, destroyed
 * when the run leaves it: no connection outlives the run. Never throws; the error is part of the result.
 */
export async function exchange(plan: RequestPlan, options: ExchangeOptions): Promise<Exchange> {
  const { signal, clientCertificates, log } = options;
  const hops: HopTiming[] = [];
  const trail = new RedirectTrail(plan.first);
  let hop = new HopTiming();
  let client: { origin: string; client: Client } | undefined;
  let response: ReceivedResponse | null = null;

  const clientFor = async (url: URL): Promise<Client> => {
    if (client?.origin === url.origin) return client.client;
    await client?.client.destroy();
    const settings = {
      family: plan.family,
      skipSSL: plan.skipSSL,
      clientCertificate: clientCertificateFor(url.hostname, clientCertificates),
    };
    if (settings.clientCertificate) log.debug(`client certificate for ${settings.clientCertificate.host}`);
    const created = new Client(url.origin, {
      connect: timedConnector(settings, () => hop, log),
      headersTimeout: SOCKET_TIMEOUT_MS,
      bodyTimeout: SOCKET_TIMEOUT_MS,
    });
    client = { origin: url.origin, client: created };
    return created;
  };

  const send = async (request: HopRequest) => {
    const previous = hop;
    const sameOrigin = client?.origin === request.url.origin;
    const dispatcher = await clientFor(request.url);
    hop = new HopTiming();
    // A kept-alive connection is not reconnected, so the hop before it saw the handshake.
    if (sameOrigin) hop.tls = previous.tls;
    hops.push(hop);
    response = null;
    log.info(`${request.method} ${request.url.href}`);
    const res = await dispatcher.request({
      path: `${request.url.pathname}${request.url.search}`,
      method: request.method as 'GET',
      headers: flatHeaders(request.headers),
      body: request.body,
      signal,
    });
    hop.response ??= performance.now();
    const statusText = res.statusText || STATUS_CODES[res.statusCode] || '';
    response = { status: res.statusCode, statusText, headers: res.headers, body: null };
    log.info(`HTTP ${res.statusCode} ${statusText}`.trim());
    return { res, received: response };
  };

  try {
    let request = plan.first;
    for (;;) {
      const { res, received } = await send(request);
      const location = single(res.headers.location);
      if (plan.followRedirects && isRedirect(received.status) && location) {
        await res.body.dump().catch(() => {});
        hop.end = hop.complete ?? performance.now();
        request = trail.follow(request, received.status, location);
        log.info(`following the redirect to ${request.url.href}`);
        continue;
      }
      if (!plan.readBody) {
        discard(res.body);
        hop.end = hop.response;
        return { hops, response: received, error: null };
      }
      received.body = await readBody(res.body, single(res.headers['content-encoding']), MAX_BODY_BYTES);
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
    return { hops, response, error: telling(error, hop) };
  } finally {
    await client?.client.destroy().catch(() => {});
  }
}
