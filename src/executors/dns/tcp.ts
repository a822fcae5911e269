import { connect } from 'node:net';
import type dnsPacket from 'dns-packet';
import { FrameReader, frame } from './framing.js';
import { type Endpoint, formatEndpoint } from './name-server.js';
import type { DnsQuery } from './query.js';
import { judgeReply } from './reply.js';

/**
 * Sends the query over a new TCP connection and reads the first length-prefixed reply, however it is split.
 * A reply that does not match is an error here: over a connection of our own nothing else can arrive.
 * Rejects with the signal's reason when it aborts first.
 */
export function askOverTcp(
  server: Endpoint,
  query: DnsQuery,
  signal: AbortSignal,
): Promise<dnsPacket.DecodedPacket> {
  return new Promise((resolve, reject) => {
    if (signal.aborted) {
      reject(signal.reason);
      return;
    }
    const where = formatEndpoint(server);
    const reader = new FrameReader();
    const socket = connect({ host: server.address, port: server.port, family: server.family });
    const finish = (settle: () => void) => {
      signal.removeEventListener('abort', onAbort);
      socket.removeAllListeners();
      socket.on('error', () => {});
      socket.destroy();
      settle();
    };
    const fail = (message: string) => finish(() => reject(new Error(message)));
    const onAbort = () => finish(() => reject(signal.reason));
    signal.addEventListener('abort', onAbort, { once: true });

    socket.on('connect', () => socket.write(frame(query.message)));
    socket.on('error', (error) => fail(`TCP query to ${where} failed: ${error.message}`));
    socket.on('close', () =>
      fail(`${where} closed the TCP connection before a whole reply arrived (${reader.progress()})`),
    );
    socket.on('data', (chunk: Buffer) => {
      const message = reader.push(chunk);
      if (!message) return;
      const verdict = judgeReply(message, query);
      if (verdict.kind === 'ignored') return fail(`invalid reply from ${where} over TCP: ${verdict.reason}`);
      const { packet } = verdict;
      if (packet) finish(() => resolve(packet));
      else fail(`invalid reply from ${where} over TCP: truncated and undecodable`);
    });
  });
}
