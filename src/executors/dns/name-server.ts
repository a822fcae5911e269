import { promises as dnsPromises, getServers } from 'node:dns';
import { isIP } from 'node:net';

/** Where queries go. */
export interface Endpoint {
  address: string;
  port: number;
  family: 4 | 6;
}

export function formatEndpoint({ address, port, family }: Endpoint): string {
  return family === 6 ? `[${address}]:${port}` : `${address}:${port}`;
}

/**
 * One entry of node:dns getServers(): `1.2.3.4`, `1.2.3.4:5353`, `2001:db8::1` or `[2001:db8::1]:5353`.
 * Null when it is none of these.
 */
export function parseServerEntry(entry: string): { address: string; port: number | null } | null {
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  const [address, port] = bracketed
    ? [bracketed[1], bracketed[2]]
    : withPort
      ? [withPort[1], withPort[2]]
      : [entry, undefined];
  if (!address || !isIP(address)) return null;
  const portNumber = port === undefined ? null : Number(port);
  if (portNumber !== null && (portNumber < 1 || portNumber > 65535)) return null;
  return { address, port: portNumber };
}

/**
 * The system's resolver: the first usable entry of getServers(). A port given there wins over the check's
 * port, which defaults to 53 and so cannot tell a choice from a default.
 */
export function systemResolver(servers: readonly string[], port: number): Endpoint | null {
  for (const entry of servers) {
    const parsed = parseServerEntry(entry);
    if (parsed) return endpoint(parsed.address, parsed.port ?? port);
  }
  return null;
}

function hostOf(nameServer: string | null | undefined): string {
  return nameServer?.trim().replace(/^\[(.*)\]$/, '$1') ?? '';
}

/** Whether the nameServer is a hostname that must be resolved first. */
export function needsLookup(nameServer: string | null | undefined): boolean {
  const host = hostOf(nameServer);
  return host !== '' && !isIP(host);
}

/** The endpoint for the check's nameServer (an IP or a hostname), or the system's resolver when it has none. */
export async function resolveNameServer(
  nameServer: string | null | undefined,
  port: number,
  signal: AbortSignal,
): Promise<Endpoint> {
  const host = hostOf(nameServer);
  if (!host) {
    const system = systemResolver(getServers(), port);
    if (!system) throw new Error('no nameServer given and the system has no resolver configured');
    return system;
  }
  if (isIP(host)) return endpoint(host, port);
  const addresses = await abortable(dnsPromises.lookup(host, { all: true }), signal).catch((error) => {
    if (signal.aborted) throw error;
    throw new Error(`name server ${host} could not be resolved: ${(error as Error).message}`);
  });
  // The check has no ipFamily field: IPv4 first, as most name servers listen there.
  const chosen = addresses.find((a) => a.family === 4) ?? addresses[0];
  if (!chosen) throw new Error(`name server ${host} has no address`);
  return endpoint(chosen.address, port);
}

function endpoint(address: string, port: number): Endpoint {
  return { address, port, family: isIP(address) === 6 ? 6 : 4 };
}

/** getaddrinfo cannot be interrupted; stop waiting for it instead. */
function abortable<T>(promise: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    promise.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
