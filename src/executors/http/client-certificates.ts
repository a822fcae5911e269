import type { ClientCertificate } from '../types.js';

function matches(pattern: string, host: string): boolean {
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
    normalized.find(({ pattern }) => matches(pattern, host))?.c
  );
}
