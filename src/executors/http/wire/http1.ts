import type { IncomingHttpHeaders } from 'node:http';
import { type HeaderInfo, HTTPParser } from 'http-parser-js';
import type { TlsDetails } from '../../../checks/index.js';
import { SOCKET_TIMEOUT_MS } from '../connection.js';
import type { HopTiming } from '../timings.js';
import type { OpenedSocket } from './connect.js';
import type { RequestHead } from './head.js';
import { ResponseBody } from './response-body.js';
import type { WireSocket } from './tcp-handle.js';

// Header bytes are read one character a byte (latin1), as undici and browsers do; the parser's default, ascii,
// would clear the high bit of every byte.
HTTPParser.encoding = 'latin1';

/** A response that is not HTTP/1.x, a connection cut short, or a server gone silent. */
export class WireError extends Error {
  constructor(
    message: string,
    readonly code?: string,
  ) {
    super(message);
    this.name = 'WireError';
  }
}

export interface WireResponse {
  status: number;
  statusText: string;
  headers: IncomingHttpHeaders;
  body: ResponseBody;
}

interface Pending {
  hop: HopTiming;
  /** A response to HEAD has no body, whatever its content-length says. */
  skipBody: boolean;
  /** The request asked the server to close: no other request may follow on the connection, even if it stays open. */
  closes: boolean;
  resolve(response: WireResponse): void;
  reject(error: unknown): void;
}

/**
 * How long a connection whose request asked the server to close waits, after its run, for the server to do so (in
 * the background: the run is over). Past it, the agent closes it itself.
 */
const SERVER_CLOSE_WAIT_MS = 2000;

/** Header names and values as undici's request API gives them: names in lower case, a repeated one as a list. */
function headersOf(flat: readonly string[]): IncomingHttpHeaders {
  const headers: Record<string, string | string[]> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) {
    const name = (flat[i] as string).toLowerCase();
    const value = flat[i + 1] as string;
    const seen = headers[name];
    if (seen === undefined) headers[name] = value;
    else if (Array.isArray(seen)) seen.push(value);
    else headers[name] = [seen, value];
  }
  return headers as IncomingHttpHeaders;
}

/** The most a response's head may hold, as the parser counts it for a head that spans several reads. */
const MAX_HEAD_BYTES = HTTPParser.maxHeaderSize;
const HEAD_OVERFLOW = 'max header size exceeded';

function parseError(error: Error): WireError {
  const overflow = error.message === HEAD_OVERFLOW;
  const code = (error as { code?: string }).code ?? (overflow ? 'HPE_HEADER_OVERFLOW' : 'HPE_INVALID');
  return new WireError(`the server's response is not valid HTTP/1.1 (${code}: ${error.message})`, code);
}

/** The parser checks the size of a head only between reads: one that came in a single read is measured here. */
function headBytes(flat: readonly string[]): number {
  let bytes = 0;
  for (const part of flat) bytes += part.length + 2;
  return bytes;
}

/**
 * One HTTP/1.1 connection of a run: requests are sent one at a time and their responses parsed as they come. A
 * response whose server keeps the connection open, to a request that did not ask it to close, leaves it reusable
 * for the run's next request to the same origin (a redirect); no request is sent on it after the run (`finish`).
 * Fails the request in flight on a socket error, a parse error, a connection closed early, SOCKET_TIMEOUT_MS of
 * silence, or the signal.
 */
export class Http1Connection {
  private readonly socket: WireSocket;
  private readonly parser = new HTTPParser(HTTPParser.RESPONSE);
  private pending: Pending | null = null;
  private body: ResponseBody | null = null;
  /** The response being parsed is informational (1xx): it is skipped. */
  private informational = false;
  private keepAlive = false;
  private idle = false;
  /** The last response came whole to a request that asked the server to close: the server's close is due. */
  private serverCloses = false;
  /** Set while `finish` waits for the server to close. */
  private lingering: NodeJS.Timeout | null = null;
  private failed = false;

  constructor(
    readonly origin: string,
    private readonly opened: OpenedSocket,
    private readonly signal: AbortSignal,
  ) {
    this.socket = opened.socket;
    this.parser[HTTPParser.kOnHeadersComplete] = (info: HeaderInfo) => this.onHeaders(info);
    this.parser[HTTPParser.kOnBody] = (chunk: Buffer) => this.body?.received(chunk);
    this.parser[HTTPParser.kOnMessageComplete] = () => this.onComplete();
    this.socket
      .on('data', (chunk: Buffer) => this.onData(chunk))
      .on('end', () => this.onEnd())
      .on('error', (error: Error) => this.fail(error))
      .on('close', () => this.failIfBusy(closedEarly))
      .setTimeout(SOCKET_TIMEOUT_MS, () =>
        this.fail(new WireError(`no data from the server for ${SOCKET_TIMEOUT_MS / 1000} s`, 'ETIMEDOUT')),
      );
    if (signal.aborted) this.onAbort();
    else signal.addEventListener('abort', this.onAbort, { once: true });
  }

  /** Whether the last response completed and left the connection open for another request. */
  get reusable(): boolean {
    return this.idle && !this.failed;
  }

  tls(): TlsDetails | null {
    return this.opened.tls();
  }

  /** Sends a request (its head and body) and resolves when its response's headers are in. */
  send(head: RequestHead, body: Buffer | null, hop: HopTiming, skipBody: boolean): Promise<WireResponse> {
    this.idle = false;
    this.serverCloses = false;
    return new Promise((resolve, reject) => {
      this.pending = { hop, skipBody, closes: head.closes, resolve, reject };
      this.socket.cork();
      this.socket.write(head.text, 'latin1');
      if (body && body.length > 0) this.socket.write(body);
      this.socket.uncork();
    });
  }

  pause(): void {
    this.socket.pause();
  }

  resume(): void {
    this.socket.resume();
  }

  /**
   * Ends the connection when its run is done with it. One whose server was asked to close and answered in full is
   * left for the server to close (at most SERVER_CLOSE_WAIT_MS, not holding the process open), so that the server
   * and not the agent keeps the connection's TIME_WAIT (docs/checks.md, "The server closes first"): the server's
   * FIN may come a little after its response. Any other connection is destroyed at once.
   */
  finish(): void {
    // A failed connection is destroyed already (fail); one whose server's FIN came has nothing left to wait for.
    if (!this.serverCloses || this.socket.destroyed || this.socket.readableEnded) {
      this.destroy();
      return;
    }
    this.signal.removeEventListener('abort', this.onAbort);
    // The server's FIN ends the socket (onEnd), which destroys it and clears the timer.
    this.lingering = setTimeout(() => this.destroy(), SERVER_CLOSE_WAIT_MS).unref();
    this.socket.unref();
    this.socket.resume();
  }

  destroy(): void {
    if (this.lingering) clearTimeout(this.lingering);
    this.signal.removeEventListener('abort', this.onAbort);
    this.idle = false;
    this.socket.destroy();
  }

  private readonly onAbort = (): void => {
    this.fail(this.signal.reason);
  };

  private onData(chunk: Buffer): void {
    let parsed: number | Error;
    try {
      parsed = this.parser.execute(chunk);
    } catch (error) {
      parsed = error as Error;
    }
    if (parsed instanceof Error) this.fail(parsed instanceof WireError ? parsed : parseError(parsed));
  }

  private onHeaders(info: HeaderInfo): number {
    const pending = this.pending;
    if (!pending || this.body) throw new WireError('the server sent a response that was not asked for');
    if (headBytes(info.headers) > MAX_HEAD_BYTES) throw parseError(new Error(HEAD_OVERFLOW));
    if (info.statusCode < 200) {
      if (info.statusCode === 101) {
        throw new WireError('the server switched protocols (101), which a check does not follow');
      }
      this.informational = true;
      return 0;
    }
    pending.hop.response = performance.now();
    this.keepAlive = info.shouldKeepAlive && !pending.closes;
    this.body = new ResponseBody(this);
    pending.resolve({
      status: info.statusCode,
      statusText: info.statusMessage,
      headers: headersOf(info.headers),
      body: this.body,
    });
    return pending.skipBody ? 1 : 0;
  }

  private onComplete(): void {
    if (this.informational) {
      this.informational = false;
      return;
    }
    const { pending, body } = this;
    if (pending) pending.hop.complete = performance.now();
    this.serverCloses = pending?.closes === true;
    this.pending = null;
    this.body = null;
    this.idle = this.keepAlive;
    body?.ended();
  }

  /** The server closed its side: that ends a body sent without a length; anything else was cut short. */
  private onEnd(): void {
    // finish() ends a body without a length; it answers an error in any other state, where the end came early.
    this.parser.finish();
    this.failIfBusy(closedEarly);
  }

  /** Fails what is in flight with the error `why` makes; a connection with nothing in flight is merely gone. */
  private failIfBusy(why: () => unknown): void {
    if (this.pending || this.body) this.fail(why());
    else this.destroy();
  }

  private fail(error: unknown): void {
    const { pending, body } = this;
    if (!pending && !body) {
      this.destroy();
      return;
    }
    if (this.failed) return;
    this.failed = true;
    this.pending = null;
    this.body = null;
    if (body) body.failed(error);
    else pending?.reject(error);
    this.destroy();
  }
}

function closedEarly(): WireError {
  return new WireError('the server closed the connection before its response was complete', 'ECONNRESET');
}
