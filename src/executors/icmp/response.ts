import type { IcmpJsonResponse } from '../../checks/index.js';
import type { EchoResult } from './pinger.js';
import { ECHO_REQUEST_BYTES, type IpFamily } from './session.js';

type Latency = IcmpJsonResponse['latency'];

const round = (value: number, decimals: number) => Number(value.toFixed(decimals));
/** Round trips are reported to the microsecond: finer digits are clock noise. */
const ms = (value: number) => round(value, 3);

/** min/avg/max and the sample standard deviation (as ping's summary shows it) of round-trip times in ms. */
function latencyOf(rtts: readonly number[]): Latency {
  const n = rtts.length;
  if (n === 0) return { avg: null, min: null, max: null, stdDev: null };
  const avg = rtts.reduce((sum, rtt) => sum + rtt, 0) / n;
  const variance = n > 1 ? rtts.reduce((sum, rtt) => sum + (rtt - avg) ** 2, 0) / (n - 1) : 0;
  return {
    avg: ms(avg),
    min: ms(Math.min(...rtts)),
    max: ms(Math.max(...rtts)),
    stdDev: ms(Math.sqrt(variance)),
  };
}

export interface PingRun {
  hostname: string;
  ipFamily: IpFamily;
  pingCount: number;
  resolvedIp: string | null;
  /** One per echo request sent; none when the run ended before pinging. */
  echoes: readonly EchoResult[];
}

/** The ICMP JSON response of docs/checks.md. Packet loss is a percentage of the requests sent. */
export function icmpResponse(run: PingRun): IcmpJsonResponse {
  const rtts = run.echoes.flatMap((echo) => (echo.rtt === null ? [] : [echo.rtt]));
  const sent = run.echoes.length;
  return {
    hostname: run.hostname,
    resolvedIp: run.resolvedIp,
    ipFamily: run.ipFamily,
    pingCount: run.pingCount,
    packetsSent: sent,
    packetsReceived: rtts.length,
    packetSize: ECHO_REQUEST_BYTES,
    packetLoss: sent === 0 ? 100 : round(((sent - rtts.length) / sent) * 100, 2),
    latency: latencyOf(rtts),
    pingResults: run.echoes.map((echo) => ({
      sequence: echo.sequence,
      success: echo.rtt !== null,
      rtt: echo.rtt === null ? null : ms(echo.rtt),
      ttl: echo.ttl,
    })),
  };
}
