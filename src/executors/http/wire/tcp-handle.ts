import { lookup } from 'node:dns';
import { EventEmitter } from 'node:events';
import { isIP } from 'node:net';
import { getSystemErrorMap, getSystemErrorName } from 'node:util';

/**
 * What the HTTP/1.1 engine uses of a connection, as a `net.Socket` offers it: a TLS connection is a `TLSSocket`,
 * a plain one a `TcpHandleSocket` where Node.js's TCP binding is there (else a `net.Socket`).
 */
export interface WireSocket {
  readonly destroyed: boolean;
  readonly readableEnded: boolean;
  on(event: 'data', listener: (chunk: Buffer) => void): this;
  on(event: 'end', listener: () => void): this;
  on(event: 'close', listener: () => void): this;
  on(event: 'error', listener: (error: Error) => void): this;
  once(event: 'connect', listener: () => void): this;
  once(event: 'lookup', listener: (error: Error | null, address: string) => void): this;
  setTimeout(ms: number, onTimeout: () => void): this;
  cork(): void;
  uncork(): void;
  write(data: string, encoding: 'latin1'): boolean;
  write(data: Buffer): boolean;
  pause(): this;
  resume(): this;
  destroy(): this;
  unref(): this;
}

/** The parts of Node.js's `tcp_wrap` and `stream_wrap` bindings a connection uses (those `net.Socket` is built on). */
interface TcpHandle {
  onread: (buffer: ArrayBuffer) => void;
  connect(request: object, address: string, port: number): number;
  connect6(request: object, address: string, port: number): number;
  readStart(): number;
  readStop(): number;
  writeLatin1String(request: object, text: string): number;
  writeBuffer(request: object, data: Buffer): number;
  close(callback: () => void): void;
  unref(): void;
}

interface Binding {
  TCP: new (type: number) => TcpHandle;
  TCPConnectWrap: new () => { oncomplete: (status: number) => void };
  WriteWrap: new () => { handle: TcpHandle; buffer: unknown; oncomplete: (status: number) => void };
  socketType: number;
  state: Int32Array;
  readBytes: number;
  offset: number;
}

/**
 * Node.js's TCP binding, or null where it is not there as this file expects it. `process.binding` is deprecated
 * (DEP0111, in the documentation only: no warning unless --pending-deprecation); without it, plain connections are
 * `net.Socket`s, as TLS ones always are.
 */
function loadBinding(): Binding | null {
  try {
    const binding = (process as unknown as { binding(name: string): Record<string, unknown> }).binding;
    const tcp = binding('tcp_wrap');
    const stream = binding('stream_wrap');
    const constants = tcp.constants as { SOCKET?: unknown } | undefined;
    const state = stream.streamBaseState;
    const indices = [stream.kReadBytesOrError, stream.kArrayBufferOffset];
    if (
      typeof tcp.TCP !== 'function' ||
      typeof tcp.TCPConnectWrap !== 'function' ||
      typeof stream.WriteWrap !== 'function' ||
      typeof constants?.SOCKET !== 'number' ||
      !(state instanceof Int32Array) ||
      !indices.every((index) => typeof index === 'number')
    )
      return null;
    const [readBytes, offset] = indices as number[];
    return {
      TCP: tcp.TCP as Binding['TCP'],
      TCPConnectWrap: tcp.TCPConnectWrap as Binding['TCPConnectWrap'],
      WriteWrap: stream.WriteWrap as Binding['WriteWrap'],
      socketType: constants.SOCKET,
      state,
      readBytes: readBytes as number,
      offset: offset as number,
    };
  } catch {
    return null;
  }
}

let binding: Binding | null | undefined;
let netSockets = false;

/** Plain connections as `net.Socket`s even where the binding is there: what runs where it is not (tested). */
export function useNetSockets(on: boolean): void {
  netSockets = on;
}

/** Whether plain connections are opened on Node.js's TCP handle (else they are `net.Socket`s). */
export function tcpHandleAvailable(): boolean {
  binding ??= loadBinding();
  return binding !== null && !netSockets;
}

/** libuv's end of file, as a read reports it. */
const UV_EOF = [...getSystemErrorMap()].find(([, [name]]) => name === 'EOF')?.[0] ?? -4095;

/** An error of a system call, made as `net.Socket` makes it: `connect ECONNREFUSED 127.0.0.1:80`, code, errno. */
function systemError(errno: number, syscall: string, address?: string, port?: number): NodeJS.ErrnoException {
  const code = getSystemErrorName(errno);
  const where = address === undefined ? '' : port ? ` ${address}:${port}` : ` ${address}`;
  const error: NodeJS.ErrnoException & { address?: string; port?: number } = new Error(
    `${syscall} ${code}${where}`,
  );
  error.errno = errno;
  error.code = code;
  error.syscall = syscall;
  if (address !== undefined) error.address = address;
  if (port) error.port = port;
  return error;
}

/**
 * A plain TCP connection on Node.js's TCP handle, without `net.Socket`'s streams. A check opens a connection, sends
 * one request and reads one response: the Duplex stream around a socket (its states, buffers, events and ticks)
 * cost more CPU than the engine's own parsing and the kernel's loopback work together (docs/performance.md, "A
 * connection on Node.js's TCP handle"). It emits what the engine listens to, as a `net.Socket` does and in the
 * same order: `lookup` for a name (not for an address), `connect`, `data`, `end` at the server's FIN (then it
 * closes), `error` with the errors `net` makes, and `close`. Writes made while it connects wait for the connection.
 */
export class TcpHandleSocket extends EventEmitter implements WireSocket {
  private readonly handle: TcpHandle;
  private connecting = true;
  private paused = false;
  private reading = false;
  private corked = 0;
  private queued: (string | Buffer)[] = [];
  private idle: NodeJS.Timeout | null = null;
  destroyed = false;
  readableEnded = false;

  constructor(
    host: string,
    private readonly port: number,
    family: 4 | 6,
  ) {
    super();
    binding ??= loadBinding();
    if (!binding) throw new Error("Node.js's TCP binding is not available: use net.connect");
    this.handle = new binding.TCP(binding.socketType);
    this.handle.onread = (buffer) => this.onRead(buffer);
    const type = isIP(host);
    if (type !== 0) {
      // As net does: the caller adds its listeners first.
      process.nextTick(() => this.connect(host, type));
      return;
    }
    lookup(host, { family }, (error, address, found) => {
      this.emit('lookup', error, address, found, host);
      if (this.destroyed) return;
      if (error) this.destroy(error);
      else this.connect(address, found);
    });
  }

  setTimeout(ms: number, onTimeout: () => void): this {
    if (this.idle) clearTimeout(this.idle);
    this.idle = setTimeout(onTimeout, ms).unref();
    return this;
  }

  cork(): void {
    this.corked++;
  }

  uncork(): void {
    if (this.corked > 0) this.corked--;
    if (this.corked === 0 && !this.connecting) this.flush();
  }

  write(data: string | Buffer, _encoding?: 'latin1'): boolean {
    if (this.destroyed) return false;
    this.queued.push(data);
    if (this.corked === 0 && !this.connecting) this.flush();
    return true;
  }

  pause(): this {
    this.paused = true;
    this.stopReading();
    return this;
  }

  resume(): this {
    this.paused = false;
    if (!this.connecting && !this.destroyed && !this.readableEnded) this.startReading();
    return this;
  }

  unref(): this {
    if (!this.destroyed) this.handle.unref();
    return this;
  }

  /** Closes the connection; `error`, if given, is emitted before `close`, both once the handle is closed. */
  destroy(error?: Error): this {
    if (this.destroyed) return this;
    this.destroyed = true;
    if (this.idle) clearTimeout(this.idle);
    this.queued = [];
    this.handle.close(() => {
      if (error && this.listenerCount('error') > 0) this.emit('error', error);
      this.emit('close');
    });
    return this;
  }

  private connect(address: string, type: number): void {
    if (this.destroyed) return;
    const request = new (binding as Binding).TCPConnectWrap();
    request.oncomplete = (status) => this.onConnect(status, address);
    const failed =
      type === 6
        ? this.handle.connect6(request, address, this.port)
        : this.handle.connect(request, address, this.port);
    if (failed) this.destroy(systemError(failed, 'connect', address, this.port));
  }

  private onConnect(status: number, address: string): void {
    if (this.destroyed) return;
    if (status < 0) {
      this.destroy(systemError(status, 'connect', address, this.port));
      return;
    }
    this.connecting = false;
    this.idle?.refresh();
    this.emit('connect');
    if (this.destroyed) return;
    if (!this.paused) this.startReading();
    if (this.corked === 0) this.flush();
  }

  private startReading(): void {
    if (this.reading) return;
    this.reading = true;
    const failed = this.handle.readStart();
    if (failed) this.destroy(systemError(failed, 'read'));
  }

  private stopReading(): void {
    if (!this.reading || this.destroyed) return;
    this.reading = false;
    this.handle.readStop();
  }

  /** Writes what is queued, in one write. */
  private flush(): void {
    if (this.queued.length === 0 || this.destroyed) return;
    const queued = this.queued;
    this.queued = [];
    const data =
      queued.length === 1
        ? (queued[0] as string | Buffer)
        : Buffer.concat(
            queued.map((part) => (typeof part === 'string' ? Buffer.from(part, 'latin1') : part)),
          );
    const request = new (binding as Binding).WriteWrap();
    request.handle = this.handle;
    // Held by the request until the kernel has taken it all, as net does.
    request.buffer = data;
    // Only a write the kernel could not take at once completes later.
    request.oncomplete = (status) => {
      if (status < 0) this.destroy(systemError(status, 'write'));
      else this.idle?.refresh();
    };
    const failed =
      typeof data === 'string'
        ? this.handle.writeLatin1String(request, data)
        : this.handle.writeBuffer(request, data);
    if (failed) this.destroy(systemError(failed, 'write'));
    else this.idle?.refresh();
  }

  private onRead(buffer: ArrayBuffer): void {
    const { state, readBytes, offset } = binding as Binding;
    const read = state[readBytes] as number;
    if (this.destroyed) return;
    if (read > 0) {
      this.idle?.refresh();
      this.emit('data', Buffer.from(buffer, state[offset], read));
      return;
    }
    if (read === 0) return;
    if (read !== UV_EOF) {
      this.destroy(systemError(read, 'read'));
      return;
    }
    this.readableEnded = true;
    this.stopReading();
    this.emit('end');
    this.destroy();
  }
}
