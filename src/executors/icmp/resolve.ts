import { lookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { IpFamily } from './session.js';

/** Bound on the name lookup, so that lookup and 50 pings stay within the 30 s execution limit. */
export const LOOKUP_TIMEOUT_MS = 5000;

const FAMILY_NUMBER = { IPv4: 4, IPv6: 6 } as const;

/** A target that cannot be pinged, with the reason a user reads. */
export class TargetError extends Error {
  override name = 'TargetError';
  /** @param networkError whether a network answer (or its absence) caused it, rather than the check itself */
  constructor(
    message: string,
    readonly networkError: boolean,
  ) {
    super(message);
  }
}

/**
 * The address of `hostname` in the given family, through the system resolver (so /etc/hosts counts).
 * Rejects with the signal's reason when the run is stopped first.
 */
export async function resolveTarget(
  hostname: string,
  family: IpFamily,
  signal: AbortSignal,
): Promise<string> {
  const name = hostname.replace(/^\[(.*)\]$/, '$1');
  const literal = isIP(name);
  if (literal) {
    if (literal !== FAMILY_NUMBER[family]) {
      throw new TargetError(`${name} is an IPv${literal} address but ipFamily is ${family}`, false);
    }
    return name;
  }
  // RFC 6761: names under .invalid never resolve, and resolver libraries should say so without asking.
  if (/(^|\.)invalid\.?$/i.test(name)) throw notFound(hostname, family, 'ENOTFOUND');

  const deadline = AbortSignal.timeout(LOOKUP_TIMEOUT_MS);
  const stop = AbortSignal.any([signal, deadline]);
  try {
    const found = await untilAborted(lookup(name, { family: FAMILY_NUMBER[family] }), stop);
    return found.address;
  } catch (error) {
    if (signal.aborted) throw signal.reason;
    if (deadline.aborted) {
      throw new TargetError(`DNS lookup of ${hostname} timed out after ${LOOKUP_TIMEOUT_MS} ms`, true);
    }
    const code = (error as { code?: unknown }).code;
    throw notFound(hostname, family, typeof code === 'string' ? code : String(error));
  }
}

function notFound(hostname: string, family: IpFamily, why: string): TargetError {
  return new TargetError(`could not resolve ${hostname} to an ${family} address (${why})`, true);
}

/** getaddrinfo cannot be cancelled: stop waiting for it instead. */
function untilAborted<T>(work: Promise<T>, signal: AbortSignal): Promise<T> {
  return new Promise((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    if (signal.aborted) return onAbort();
    signal.addEventListener('abort', onAbort, { once: true });
    work.then(resolve, reject).finally(() => signal.removeEventListener('abort', onAbort));
  });
}
