import type { HttpTimingPhases, HttpTimings, TlsDetails } from '../../checks/index.js';

/** The moments (performance.now()) of one request/response exchange; a redirect makes another. */
export class HopTiming {
  readonly start = performance.now();
  /** A connection was asked for (absent when a kept-alive one was reused). */
  socket?: number;
  lookup?: number;
  connect?: number;
  secureConnect?: number;
  /** Headers parsed. */
  response?: number;
  /** The last byte of the response parsed. */
  complete?: number;
  end?: number;
  tls: TlsDetails | null = null;
}

type Phases = Omit<HttpTimingPhases, 'total'>;

/**
 * A hop's phases in whole microseconds, like the `request` library's: wait until the socket, dns until
 * its lookup, tcp until connected, firstByte until headers (TLS handshake included), download until the
 * last body byte. A missing mark (no lookup for an IP literal, a reused connection) counts as its
 * predecessor, so its phase is 0.
 */
function hopPhasesMicros(hop: HopTiming, now: number): Phases {
  let previous = 0;
  const offset = (mark: number | undefined) => {
    if (mark !== undefined) previous = Math.max(previous, Math.round((mark - hop.start) * 1000));
    return previous;
  };
  const socket = offset(hop.socket);
  const lookup = offset(hop.lookup);
  const connect = offset(hop.connect);
  const response = offset(hop.response ?? now);
  const end = offset(hop.end ?? now);
  return {
    wait: socket,
    dns: lookup - socket,
    tcp: connect - lookup,
    firstByte: response - connect,
    download: end - response,
  };
}

/**
 * Timings and phases of a run in milliseconds (3 decimals), the phases of all hops summed. Both are
 * computed in whole microseconds, so the phases add up to `total` and the timings are their running sums.
 */
export function runTimings(
  hops: readonly HopTiming[],
  now = performance.now(),
): { timings: HttpTimings; timingPhases: HttpTimingPhases } {
  const sum: Phases = { wait: 0, dns: 0, tcp: 0, firstByte: 0, download: 0 };
  for (const hop of hops) {
    const phases = hopPhasesMicros(hop, now);
    for (const key of Object.keys(sum) as (keyof Phases)[]) sum[key] += phases[key];
  }
  const socket = sum.wait;
  const lookup = socket + sum.dns;
  const connect = lookup + sum.tcp;
  const response = connect + sum.firstByte;
  const end = response + sum.download;
  const ms = (micros: number) => micros / 1000;
  return {
    timings: {
      socket: ms(socket),
      lookup: ms(lookup),
      connect: ms(connect),
      response: ms(response),
      end: ms(end),
    },
    timingPhases: {
      wait: ms(sum.wait),
      dns: ms(sum.dns),
      tcp: ms(sum.tcp),
      firstByte: ms(sum.firstByte),
      download: ms(sum.download),
      total: ms(end),
    },
  };
}
