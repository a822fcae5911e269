import netPing, { type PingRequest } from 'net-ping';

export type IpFamily = 'IPv4' | 'IPv6';

/** Bytes of each echo request: the 8-byte ICMP header and 56 bytes of data, what ping and fping send. */
export const ECHO_REQUEST_BYTES = 64;

/** What became of one echo request. */
export interface EchoOutcome {
  /** Round-trip time in milliseconds; null when no reply came. */
  rtt: number | null;
  /** TTL of the reply's IP header; null without a reply, and always for IPv6 (see onSocketMessage). */
  ttl: number | null;
  /** What came instead of a reply (an ICMP error from the path, a send error); null for a reply or a timeout. */
  failure: string | null;
}

// Linux socket options (linux/icmp.h, linux/icmpv6.h): a set bit blocks that ICMP type.
const SOL_RAW = 255;
const ICMP_FILTER = 1;
const IPPROTO_ICMPV6 = 58;
const ICMP6_FILTER = 1;
/** Echo reply, destination unreachable, source quench, redirect, time exceeded. */
const ICMP_PASSED = [0, 3, 4, 5, 11];
/** Destination unreachable, packet too big, time exceeded, parameter problem, echo reply. */
const ICMPV6_PASSED = [1, 2, 3, 4, 129];

interface TimedRequest extends PingRequest {
  sentAt?: bigint;
}

// net-ping identifies a session's echo requests by the process id alone, so two sessions of one process
// (two ICMP checks at once) would take each other's replies: every session gets an identifier of its own.
const identifiersInUse = new Set<number>();

function takeIdentifier(): number {
  for (let i = 0; i < 65534; i++) {
    const id = ((process.pid + i) % 65534) + 1;
    if (!identifiersInUse.has(id)) {
      identifiersInUse.add(id);
      return id;
    }
  }
  throw new Error('too many ICMP sessions open at once');
}

/**
 * A net-ping session timed with the monotonic high-resolution clock (net-ping's own timestamps are Dates,
 * whole milliseconds): the send time is taken just before the datagram is written, the receive time as the
 * reply is read, both in the same turn of the event loop as the socket operation.
 */
export class PingSession extends netPing.Session {
  private readonly ipv4: boolean;
  private lastQueued: TimedRequest | undefined;
  private receipt: { at: bigint; ttl: number | null } | undefined;
  private closed = false;
  /** An error of the socket itself, after which the session is closed. */
  socketError: Error | undefined;

  private constructor(family: IpFamily, identifier: number) {
    super({
      networkProtocol: netPing.NetworkProtocol[family],
      packetSize: ECHO_REQUEST_BYTES,
      retries: 0,
      sessionId: identifier,
    });
    this.ipv4 = family === 'IPv4';
    this.passOnlyReplies();
    // Without a listener an 'error' event would throw out of the socket's callback and end the process.
    this.on('error', (error: Error) => {
      this.socketError ??= error;
      this.close();
    });
  }

  /** Opens a raw ICMP socket; throws when it cannot (no NET_RAW capability, no such address family). */
  static open(family: IpFamily): PingSession {
    const identifier = takeIdentifier();
    try {
      return new PingSession(family, identifier);
    } catch (error) {
      identifiersInUse.delete(identifier);
      throw error;
    }
  }

  /**
   * Has the kernel pass this socket only echo replies and the ICMP errors net-ping reports, not the echo
   * requests of other pingers (nor, on loopback, our own), which would otherwise be read and dropped in
   * JavaScript, a reply waiting behind them. Linux only; elsewhere everything passes, as before.
   */
  private passOnlyReplies(): void {
    const blockAllBut = (types: readonly number[]) => {
      const words = new Uint32Array(this.ipv4 ? 1 : 8).fill(0xffffffff);
      for (const type of types) words[type >> 5] = (words[type >> 5] ?? 0) & ~(1 << (type & 31));
      return words;
    };
    try {
      if (this.ipv4) {
        this.socket?.setOption(SOL_RAW, ICMP_FILTER, blockAllBut(ICMP_PASSED)[0] ?? 0);
      } else {
        this.socket?.setOption(
          IPPROTO_ICMPV6,
          ICMP6_FILTER,
          Buffer.from(blockAllBut(ICMPV6_PASSED).buffer),
          32,
        );
      }
    } catch {}
  }

  get isClosed(): boolean {
    return this.closed;
  }

  /** Sends one echo request to an IP address and waits for its reply, at most `timeoutMs`. */
  echo(address: string, timeoutMs: number): Promise<EchoOutcome> {
    if (this.closed) return Promise.resolve({ rtt: null, ttl: null, failure: 'the ICMP session is closed' });
    return new Promise((resolve) => {
      this.timeout = timeoutMs;
      this.lastQueued = undefined;
      let request: TimedRequest | undefined;
      this.pingHost(address, (error) => {
        // A reply is handed over synchronously from onSocketMessage, so the receipt is this reply's.
        const receipt = this.receipt;
        const sentAt = request?.sentAt;
        if (error || !receipt || sentAt === undefined) {
          const timedOut = !error || error.name === 'RequestTimedOutError';
          resolve({ rtt: null, ttl: null, failure: timedOut ? null : error.message });
        } else {
          resolve({ rtt: Number(receipt.at - sentAt) / 1e6, ttl: receipt.ttl, failure: null });
        }
      });
      request = this.lastQueued;
    });
  }

  override close(): this {
    if (this.closed) return this;
    this.closed = true;
    try {
      super.close();
    } finally {
      identifiersInUse.delete(this.sessionId);
    }
    return this;
  }

  protected override reqQueue(req: PingRequest): this {
    this.lastQueued = req;
    return super.reqQueue(req);
  }

  protected override onBeforeSocketSend(req: TimedRequest): void {
    super.onBeforeSocketSend(req);
    req.sentAt = process.hrtime.bigint();
  }

  protected override onSocketMessage(buffer: Buffer, source: string): void {
    // An IPv4 raw socket hands over the IP header (TTL at byte 8); an IPv6 one hands over only the ICMPv6
    // message, and raw-socket cannot read the hop limit from ancillary data.
    this.receipt = { at: process.hrtime.bigint(), ttl: this.ipv4 ? (buffer[8] ?? null) : null };
    try {
      super.onSocketMessage(buffer, source);
    } finally {
      this.receipt = undefined;
    }
  }
}
