import type dnsPacket from 'dns-packet';
import type { DnsCheck } from '../../checks/index.js';
import { type Deadline, noAnswerWithin } from '../deadline.js';
import { type Endpoint, formatEndpoint, needsLookup, resolveNameServer } from './name-server.js';
import { buildQuery, queryName } from './query.js';
import { askOverTcp } from './tcp.js';
import { askOverUdp } from './udp.js';

export interface ExchangeOutcome {
  /** The answer the check is judged on; with an error, possibly a truncated UDP answer whose TCP retry failed. */
  packet: dnsPacket.DecodedPacket | null;
  /** Milliseconds per step taken: `dns` (resolving a nameServer hostname), `udp`, `tcp`. */
  phases: Record<string, number>;
  /** Why no usable answer was had; null when `packet` is the answer. */
  error: string | null;
}

interface Run {
  request: DnsCheck['request'];
  deadline: Deadline;
  limitMs: number | null;
  runSignal: AbortSignal;
}

/** Resolves the name server, asks the question over the check's protocol, and over TCP again when UDP was cut. */
export async function exchange(run: Run): Promise<ExchangeOutcome> {
  const phases: Record<string, number> = {};
  const { request, deadline } = run;
  const timed = async <T>(phase: string, step: () => Promise<T>): Promise<T> => {
    const start = performance.now();
    try {
      return await step();
    } finally {
      phases[phase] = performance.now() - start;
    }
  };
  const failed = (error: string, packet: dnsPacket.DecodedPacket | null = null) => ({
    packet,
    phases,
    error,
  });

  const name = queryName(request.query);
  if ('problem' in name) return failed(name.problem);
  let server: Endpoint;
  try {
    const resolve = () => resolveNameServer(request.nameServer, request.port, deadline.signal);
    server = needsLookup(request.nameServer) ? await timed('dns', resolve) : await resolve();
  } catch (error) {
    return failed(describe(error, run, 'resolving the name server'));
  }
  const query = buildQuery(name.name, request.recordType);

  const overTcp = (): Promise<dnsPacket.DecodedPacket> =>
    timed('tcp', () => askOverTcp(server, query, deadline.signal));
  if (request.protocol === 'TCP') {
    try {
      return { packet: await overTcp(), phases, error: null };
    } catch (error) {
      return failed(describe(error, run, `waiting for ${formatEndpoint(server)} over TCP`));
    }
  }

  const ignored: string[] = [];
  let udp: Awaited<ReturnType<typeof askOverUdp>>;
  try {
    udp = await timed('udp', () => askOverUdp(server, query, deadline.signal, ignored));
  } catch (error) {
    return failed(describe(error, run, `waiting for ${formatEndpoint(server)} over UDP`, ignored));
  }
  if (!udp.truncated) return { packet: udp.packet, phases, error: null };
  try {
    return { packet: await overTcp(), phases, error: null };
  } catch (error) {
    const why = describe(error, run, `asking ${formatEndpoint(server)} again over TCP`);
    return failed(`the UDP answer was truncated and the TCP retry failed: ${why}`, udp.packet);
  }
}

/** One line for an error, naming the limit or the stop when the deadline ended the wait. */
function describe(error: unknown, run: Run, doing: string, ignored: readonly string[] = []): string {
  const stop = run.deadline.reason();
  const skipped = ignored.length
    ? `; ignored ${ignored.length} ${ignored.length === 1 ? 'reply' : 'replies'} (${ignored[0]})`
    : '';
  if (stop === 'overMaxResponseTime') return `${noAnswerWithin(run.limitMs)} while ${doing}${skipped}`;
  if (stop === 'runStopped')
    return `the run was stopped while ${doing} (${reasonText(run.runSignal.reason)})${skipped}`;
  return error instanceof Error ? error.message : String(error);
}

function reasonText(reason: unknown): string {
  if (reason instanceof Error) return reason.message;
  return typeof reason === 'string' && reason !== '' ? reason : 'cancelled';
}
