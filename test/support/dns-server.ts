/**
 * A programmable DNS server for tests: UDP and TCP on the same random port of 127.0.0.1, replies built with
 * dns-packet (or raw bytes), optionally late, several per query, or cut into small TCP chunks.
 */
import { createSocket, type Socket as UdpSocket } from 'node:dgram';
import { createServer, type Server, type Socket } from 'node:net';
import dnsPacket from 'dns-packet';

export type DnsProtocol = 'UDP' | 'TCP';

export interface ReplyPlan {
  /** A message to encode; `id`, `type`, `flags` and `questions` default to a response to the query. */
  packet?: dnsPacket.Packet;
  /** Bytes sent as they are (over TCP still length-prefixed), instead of `packet`. */
  raw?: Buffer;
  /** Sent this many ms after the query arrived. */
  delayMs?: number;
  /** TCP only: the framed reply is written in pieces of this many bytes, a few ms apart. */
  chunkBytes?: number;
}

/** What to send for a query: one reply, several (in order), or nothing at all (null or []). */
export type DnsHandler = (
  query: dnsPacket.DecodedPacket,
  protocol: DnsProtocol,
) => ReplyPlan | ReplyPlan[] | null;

export interface TestDnsServer {
  address: '127.0.0.1';
  port: number;
  /** Every query received, in order. */
  queries: { protocol: DnsProtocol; packet: dnsPacket.DecodedPacket }[];
  handle(handler: DnsHandler): void;
  close(): Promise<void>;
}

export const RCODE = { NOERROR: 0, FORMERR: 1, SERVFAIL: 2, NXDOMAIN: 3, NOTIMP: 4, REFUSED: 5 } as const;

/** A response to the query: RD copied, RA set, with these answers and this response code. */
export function respond(
  query: dnsPacket.DecodedPacket,
  options: { answers?: unknown[]; rcode?: number; truncated?: boolean; id?: number } = {},
): ReplyPlan {
  const flags =
    (query.flag_rd ? dnsPacket.RECURSION_DESIRED : 0) |
    dnsPacket.RECURSION_AVAILABLE |
    (options.truncated ? dnsPacket.TRUNCATED_RESPONSE : 0) |
    (options.rcode ?? 0);
  return {
    packet: {
      type: 'response',
      id: options.id ?? query.id,
      flags,
      questions: query.questions,
      answers: (options.answers ?? []) as dnsPacket.Answer[],
    },
  };
}

/** Answers from a list of records by name (case-insensitive) and type; NXDOMAIN for names it has none of. */
export function zone(records: { name: string; type: string }[]): DnsHandler {
  return (query) => {
    const question = query.questions?.[0];
    if (!question) return respond(query, { rcode: RCODE.FORMERR });
    const named = records.filter((r) => r.name.toLowerCase() === question.name.toLowerCase());
    if (named.length === 0) return respond(query, { rcode: RCODE.NXDOMAIN });
    return respond(query, { answers: named.filter((r) => r.type === question.type) });
  };
}

/** An HTTPS record (type 65, which dns-packet writes only as raw RDATA), RFC 9460 wire form. */
export function httpsRecord(
  name: string,
  ttl: number,
  priority: number,
  target: string,
  params: [key: number, value: Buffer][],
): { name: string; type: string; ttl: number; data: Buffer } {
  const head = Buffer.alloc(2);
  head.writeUInt16BE(priority);
  const labels = target === '.' ? [] : target.replace(/\.$/, '').split('.');
  const targetBytes = Buffer.concat([
    ...labels.map((l) => Buffer.concat([Buffer.from([l.length]), Buffer.from(l)])),
    Buffer.from([0]),
  ]);
  const paramBytes = params.map(([key, value]) => {
    const keyAndLength = Buffer.alloc(4);
    keyAndLength.writeUInt16BE(key);
    keyAndLength.writeUInt16BE(value.length, 2);
    return Buffer.concat([keyAndLength, value]);
  });
  return { name, type: 'UNKNOWN_65', ttl, data: Buffer.concat([head, targetBytes, ...paramBytes]) };
}

function encode(plan: ReplyPlan): Buffer {
  if (plan.raw) return plan.raw;
  return dnsPacket.encode(plan.packet ?? {});
}

function asList(plans: ReplyPlan | ReplyPlan[] | null): ReplyPlan[] {
  if (plans === null) return [];
  return Array.isArray(plans) ? plans : [plans];
}

export async function startDnsServer(initial: DnsHandler): Promise<TestDnsServer> {
  let handler = initial;
  const queries: TestDnsServer['queries'] = [];
  const timers = new Set<NodeJS.Timeout>();
  const connections = new Set<Socket>();
  const later = (ms: number, action: () => void) => {
    const timer = setTimeout(() => {
      timers.delete(timer);
      action();
    }, ms);
    timers.add(timer);
  };

  const onUdp = (udp: UdpSocket) => (message: Buffer, peer: { address: string; port: number }) => {
    let query: dnsPacket.DecodedPacket;
    try {
      query = dnsPacket.decode(message);
    } catch {
      return;
    }
    queries.push({ protocol: 'UDP', packet: query });
    for (const plan of asList(handler(query, 'UDP'))) {
      later(plan.delayMs ?? 0, () => udp.send(encode(plan), peer.port, peer.address));
    }
  };

  const onTcp = (socket: Socket) => {
    connections.add(socket);
    socket.on('close', () => connections.delete(socket));
    socket.on('error', () => {});
    let buffered = Buffer.alloc(0);
    socket.on('data', (chunk: Buffer) => {
      buffered = Buffer.concat([buffered, chunk]);
      while (buffered.length >= 2 && buffered.length >= 2 + buffered.readUInt16BE(0)) {
        const message = buffered.subarray(2, 2 + buffered.readUInt16BE(0));
        buffered = buffered.subarray(2 + message.length);
        let query: dnsPacket.DecodedPacket;
        try {
          query = dnsPacket.decode(message);
        } catch {
          socket.destroy();
          return;
        }
        queries.push({ protocol: 'TCP', packet: query });
        for (const plan of asList(handler(query, 'TCP'))) {
          later(plan.delayMs ?? 0, () => writeFramed(socket, encode(plan), plan.chunkBytes));
        }
      }
    });
  };

  const writeFramed = (socket: Socket, message: Buffer, chunkBytes: number | undefined) => {
    const length = Buffer.alloc(2);
    length.writeUInt16BE(message.length);
    const framed = Buffer.concat([length, message]);
    if (!chunkBytes) {
      socket.write(framed);
      return;
    }
    const writeFrom = (at: number) => {
      if (at >= framed.length || socket.destroyed) return;
      socket.write(framed.subarray(at, at + chunkBytes));
      later(2, () => writeFrom(at + chunkBytes));
    };
    writeFrom(0);
  };

  const { tcp, udp } = await listenOnOnePort(onTcp, onUdp);
  const address = tcp.address();
  const port = typeof address === 'object' && address ? address.port : 0;
  return {
    address: '127.0.0.1',
    port,
    queries,
    handle: (next) => {
      handler = next;
    },
    close: async () => {
      for (const timer of timers) clearTimeout(timer);
      for (const socket of connections) socket.destroy();
      await new Promise<void>((resolve) => udp.close(() => resolve()));
      await new Promise<void>((resolve) => tcp.close(() => resolve()));
    },
  };
}

/** TCP on a random port, then UDP on the same number; tries again when that UDP port is taken. */
async function listenOnOnePort(
  onTcp: (socket: Socket) => void,
  onUdp: (udp: UdpSocket) => (message: Buffer, peer: { address: string; port: number }) => void,
): Promise<{ tcp: Server; udp: UdpSocket }> {
  for (let attempt = 0; attempt < 20; attempt++) {
    const tcp = createServer(onTcp);
    await new Promise<void>((resolve, reject) => {
      tcp.once('error', reject);
      tcp.listen(0, '127.0.0.1', () => resolve());
    });
    const address = tcp.address();
    const port = typeof address === 'object' && address ? address.port : 0;
    const udp = createSocket('udp4');
    const bound = await new Promise<boolean>((resolve) => {
      udp.once('error', () => resolve(false));
      udp.bind(port, '127.0.0.1', () => resolve(true));
    });
    if (bound) {
      udp.on('message', onUdp(udp));
      return { tcp, udp };
    }
    try {
      udp.close();
    } catch {
      // never bound
    }
    await new Promise<void>((resolve) => tcp.close(() => resolve()));
  }
  throw new Error('no port free for both UDP and TCP on 127.0.0.1');
}
