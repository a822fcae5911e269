import { subscribe } from 'node:diagnostics_channel';
import type { Socket } from 'node:net';
import type { PeerCertificate, TLSSocket } from 'node:tls';
import buildConnector from 'undici/lib/core/connect.js';
import type { TlsDetails } from '../../checks/index.js';
import type { ClientCertificate } from '../types.js';
import type { JobLog } from './job-log.js';
import type { HopTiming } from './timings.js';

/** Safety net for a run whose caller set no deadline: no connection waits longer than the kinds' limit. */
export const SOCKET_TIMEOUT_MS = 30_000;

export interface ConnectionSettings {
  family: 4 | 6;
  skipSSL: boolean;
  clientCertificate: ClientCertificate | undefined;
}

/** buildConnector's connector returns the socket it opens, though its type says void. */
type SocketConnector = (
  options: buildConnector.Options,
  callback: buildConnector.Callback,
) => Socket | TLSSocket | undefined;

function buildOptions(settings: ConnectionSettings): buildConnector.BuildOptions {
  const cert = settings.clientCertificate;
  return {
    family: settings.family,
    autoSelectFamily: false,
    rejectUnauthorized: !settings.skipSSL,
    timeout: SOCKET_TIMEOUT_MS,
    maxCachedSessions: 0,
    ...(cert && {
      cert: cert.cert,
      key: cert.key,
      ...(cert.ca ? { ca: cert.ca } : {}),
      ...(cert.passphrase ? { passphrase: cert.passphrase } : {}),
    }),
  } as buildConnector.BuildOptions;
}

/**
 * undici's connector, timed: the hop being sent when a connection is opened gets its socket, lookup,
 * connect and secureConnect moments, and the TLS details of the server.
 */
export function timedConnector(
  settings: ConnectionSettings,
  currentHop: () => HopTiming,
  log: JobLog,
): buildConnector.connector {
  const connect = buildConnector(buildOptions(settings)) as unknown as SocketConnector;
  return (options, callback) => {
    const hop = currentHop();
    hop.socket = performance.now();
    const socket = connect(options, callback);
    if (!socket) return;
    markResponsesOn(socket, currentHop);
    // Prepended: undici's own listeners set up the connection and write the request first otherwise.
    socket
      .prependOnceListener('lookup', (error: Error | null, address: string) => {
        hop.lookup = performance.now();
        if (!error) log.debug(`resolved ${options.hostname} to ${address}`);
      })
      .prependOnceListener('connect', () => {
        hop.connect = performance.now();
        log.debug(`connected to ${socket.remoteAddress}:${socket.remotePort}`);
      })
      .prependOnceListener('secureConnect', () => {
        hop.secureConnect = performance.now();
        hop.tls = tlsDetailsOf(socket as TLSSocket);
        log.debug(`TLS ${hop.tls.protocol} ${hop.tls.cipher}, certificate of ${hop.tls.subject}`);
      })
      .once('error', (error: Error) => {
        hop.connectionError ??= error;
      });
  };
}

function wildcardMatches(pattern: string, host: string): boolean {
  if (pattern === host) return true;
  if (!pattern.startsWith('*.')) return false;
  const dot = host.indexOf('.');
  return dot > 0 && host.slice(dot + 1) === pattern.slice(2);
}

/** The client certificate for a host: an exact match first, else a one-label wildcard (`*.example.com`). */
export function clientCertificateFor(
  hostname: string,
  certificates: readonly ClientCertificate[],
): ClientCertificate | undefined {
  const host = hostname.replace(/^\[|\]$/g, '').toLowerCase();
  const normalized = certificates.map((c) => ({
    c,
    pattern: c.host
      .trim()
      .replace(/^\[|\]$/g, '')
      .toLowerCase(),
  }));
  return (
    normalized.find(({ pattern }) => pattern === host)?.c ??
    normalized.find(({ pattern }) => wildcardMatches(pattern, host))?.c
  );
}

const DAY_MS = 86_400_000;

/** The certificate's common name, or its whole distinguished name when it has none. */
function nameOf(name: PeerCertificate['subject'] | undefined): string | null {
  if (!name) return null;
  const cn = name.CN as string | string[] | undefined;
  if (cn) return Array.isArray(cn) ? cn.join(', ') : cn;
  const parts = Object.entries(name).map(([k, v]) => `${k}=${Array.isArray(v) ? v.join('+') : v}`);
  return parts.length > 0 ? parts.join(', ') : null;
}

function isoDate(text: string | undefined): string | null {
  if (!text) return null;
  const time = Date.parse(text);
  return Number.isNaN(time) ? null : new Date(time).toISOString();
}

/** What a result shows of a TLS connection: protocol, cipher and the server's certificate. */
function tlsDetailsOf(socket: TLSSocket, now = Date.now()): TlsDetails {
  const cert = socket.getPeerCertificate();
  const hasCert = cert && Object.keys(cert).length > 0;
  const validTo = hasCert ? isoDate(cert.valid_to) : null;
  return {
    protocol: socket.getProtocol() ?? null,
    cipher: socket.getCipher()?.name ?? null,
    subject: hasCert ? nameOf(cert.subject) : null,
    issuer: hasCert ? nameOf(cert.issuer) : null,
    validFrom: hasCert ? isoDate(cert.valid_from) : null,
    validTo,
    daysRemaining: validTo === null ? null : Math.floor((Date.parse(validTo) - now) / DAY_MS),
  };
}

/**
 * The moments undici parses a response's headers and its last byte, taken from its diagnostics
 * channels (documented: docs/api/DiagnosticsChannel.md) rather than when `request()` resolves, which
 * comes a few tenths of a millisecond later. A request is tied to its hop through the socket our
 * connector opened for it.
 */
const hopOfSocket = new WeakMap<object, () => HopTiming>();
const hopOfRequest = new WeakMap<object, HopTiming>();
let subscribed = false;

function subscribeOnce(): void {
  if (subscribed) return;
  subscribed = true;
  subscribe('undici:client:sendHeaders', (message) => {
    const { request, socket } = message as { request: object; socket: object };
    const hop = hopOfSocket.get(socket)?.();
    if (hop) hopOfRequest.set(request, hop);
  });
  subscribe('undici:request:headers', (message) => {
    const { request, response } = message as { request: object; response: { statusCode: number } };
    const hop = hopOfRequest.get(request);
    if (hop && response.statusCode >= 200) hop.response ??= performance.now();
  });
  subscribe('undici:request:trailers', (message) => {
    const hop = hopOfRequest.get((message as { request: object }).request);
    if (hop) hop.complete ??= performance.now();
  });
}

/** Marks the responses sent over `socket` on the hop being sent at the time. */
function markResponsesOn(socket: Socket, currentHop: () => HopTiming): void {
  subscribeOnce();
  hopOfSocket.set(socket, currentHop);
}
