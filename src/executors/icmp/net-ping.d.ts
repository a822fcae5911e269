/** The part of net-ping (CommonJS, untyped) this executor uses, internals included: see session.ts. */
declare module 'net-ping' {
  import { EventEmitter } from 'node:events';

  export interface SessionOptions {
    networkProtocol?: number;
    /** Bytes of each echo request, ICMP header included. */
    packetSize?: number;
    retries?: number;
    timeout?: number;
    ttl?: number;
    sessionId?: number;
  }

  export type PingCallback = (error: Error | null, target: string, sent?: Date, rcvd?: Date) => void;

  /** One echo request in flight; `id` is its ICMP sequence number. */
  export interface PingRequest {
    id: number;
    target: string;
    timeout: number;
    retries: number;
    callback: PingCallback;
  }

  /** raw-socket's socket, as net-ping holds it. */
  export interface RawSocket {
    setOption(level: number, option: number, value: number): void;
    setOption(level: number, option: number, value: Buffer, length: number): void;
  }

  export class Session extends EventEmitter {
    constructor(options?: SessionOptions);
    /** The ICMP identifier of this session's echo requests. */
    readonly sessionId: number;
    /** Reply timeout in ms, read when a request is queued. */
    timeout: number;
    protected socket: RawSocket | undefined;
    close(): this;
    pingHost(target: string, callback: PingCallback): this;
    protected reqQueue(req: PingRequest): this;
    protected onBeforeSocketSend(req: PingRequest): void;
    protected onSocketMessage(buffer: Buffer, source: string): void;
  }

  const netPing: {
    Session: typeof Session;
    NetworkProtocol: { IPv4: number; IPv6: number };
  };
  export default netPing;
}
