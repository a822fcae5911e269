import type { PeerCertificate, TLSSocket } from 'node:tls';
import type { TlsDetails } from '../../checks/index.js';
import type { ClientCertificate } from '../types.js';

/** Safety net for a run whose caller set no deadline: no connection waits longer than the kinds' limit. */
export const SOCKET_TIMEOUT_MS = 30_000;

export interface ConnectionSettings {
  family: 4 | 6;
  skipSSL: boolean;
  clientCertificate: ClientCertificate | undefined;
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
export function tlsDetailsOf(socket: TLSSocket, now = Date.now()): TlsDetails {
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
