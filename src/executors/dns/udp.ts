import { createSocket } from 'node:dgram';
import type dnsPacket from 'dns-packet';
import { type Endpoint, formatEndpoint } from './name-server.js';
import type { DnsQuery } from './query.js';
import { judgeReply } from './reply.js';

export interface UdpReply {
  packet: dnsPacket.DecodedPacket | null;
  truncated: boolean;
}

/**
 * Sends the query as one datagram and waits for a reply that matches it. Replies that do not match (other
 * id, other question, undecodable) are noted in `ignored` and waited past, as a spoofed or stale datagram
 * must not end the wait. Not retransmitted: the time limit of a check is short. Rejects with the signal's
 * reason when it aborts first.
 */
export function askOverUdp(
  server: Endpoint,
  query: DnsQuery,
  signal: AbortSignal,
  ignored: string[],
): Promise<UdpReply> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const socket = createSocket(server.family === 6 ? 'udp6' : 'udp4');
    const finish = (settle: () => void) => {
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners('message');
      socket.on('error', () => {});
      socket.close();
      settle();
    };
    const onAbort = () => finish(() => reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });

    socket.on('error', (error) =>
      finish(() => reject(new Error(`UDP query to ${formatEndpoint(server)} failed: ${error.message}`))),
    );
    socket.on('message', (message) => {
      const verdict = judgeReply(message, query);
      if (verdict.kind === 'ignored') ignored.push(verdict.reason);
      else finish(() => resolve({ packet: verdict.packet, truncated: verdict.kind === 'truncated' }));
    });
    // A connected socket takes datagrams only from the server and hears ICMP "port unreachable".
    socket.connect(server.port, server.address, () => socket.send(query.message));
  });
}
