import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';

/** The address a hostname names itself, brackets of an IPv6 literal removed; null for a name to look up. */
export function literalAddress(hostname: string): string | null {
  const bare = hostname.startsWith('[') && hostname.endsWith(']') ? hostname.slice(1, -1) : hostname;
  return isIP(bare) ? bare : null;
}

/** Looks a name up once, in the family asked for; rejects with the lookup error or when `stop` fires first. */
export function lookupAddress(hostname: string, family: 4 | 6, stop: AbortSignal): Promise<string> {
  const found = lookup(hostname, { family }).then((result) => result.address);
  found.catch(() => {}); // a lookup that outlives a stopped run must not surface as unhandled
  return new Promise((resolve, reject) => {
    const onStop = () => reject(stop.reason);
    if (stop.aborted) return onStop();
    stop.addEventListener('abort', onStop, { once: true });
    found.then(resolve, reject).finally(() => stop.removeEventListener('abort', onStop));
  });
}
