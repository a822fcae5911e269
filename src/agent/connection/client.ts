import WebSocket from 'ws';
import type { Logger } from '../../observability/logger.js';
import {
  type ControlMessage,
  parseControlMessage,
  type RunMessage,
} from '../../protocol/control-messages.js';
import type { AgentMessage, HelloMessage } from '../../protocol/messages.js';
import {
  CLOSE_CODES,
  PROTOCOL_LIMITS,
  PROTOCOL_VERSION,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '../../protocol/version.js';
import type { AgentConfig } from '../config.js';
import type { Backoff } from './backoff.js';
import { webSocketAgent } from './proxy.js';

type Welcome = Extract<ControlMessage, { type: 'welcome' }>;

export interface ConnectionOptions {
  /** ws:// or wss:// address of the connect route. */
  url: string;
  headers: Record<string, string>;
  proxy: AgentConfig['proxy'];
  log: Logger;
  backoff: Backoff;
  /** Wait before trying again after a fatal refusal (revoked key, unsupported protocol). */
  fatalRetryMs: number;
  /** The hello of `protocolVersion` for a new connection, made when it opens. */
  hello(protocolVersion: number): HelloMessage;
  /** The heartbeat's contents, made when it is due. */
  heartbeat(): { running: string[]; queued: number };
  onWelcome(welcome: Welcome): void;
  onRun(run: RunMessage): void;
  onCancel(runId: string): void;
  /** The welcomed connection is gone (credit granted on it is void). */
  onDisconnect(): void;
}

/** How long the control plane has to answer the hello, and a ping. */
const WELCOME_TIMEOUT_MS = 15_000;
const PING_INTERVAL_MS = 30_000;
const FATAL_CLOSE_CODES: ReadonlySet<number> = new Set([
  CLOSE_CODES.unsupportedProtocol,
  CLOSE_CODES.revoked,
]);

/**
 * The agent's one WebSocket to the control plane: hello → welcome, then runs and cancels in, credit, heartbeats
 * and releases out. Reconnects on its own with back-off; after a fatal refusal it logs why and waits long.
 */
export class ControlConnection {
  private ws: WebSocket | null = null;
  private welcomed = false;
  private stopped = false;
  private fatal: string | null = null;
  private lastError: string | null = null;
  private timers: NodeJS.Timeout[] = [];
  private retryTimer: NodeJS.Timeout | null = null;
  /** The version this agent offers: the newest, until a control plane refuses it for an older one. */
  private offered = PROTOCOL_VERSION;
  private refusedVersion = false;
  /** The version of the last welcome; until one, the oldest (results then hold only what every version takes). */
  private welcomedVersion = SUPPORTED_PROTOCOL_VERSIONS[0] ?? 1;

  constructor(private readonly options: ConnectionOptions) {}

  start(): void {
    this.connect();
  }

  /** The protocol version the control plane welcomed last. */
  get protocolVersion(): number {
    return this.welcomedVersion;
  }

  /** True between the welcome and the end of the connection. */
  get connected(): boolean {
    return this.welcomed && this.ws?.readyState === WebSocket.OPEN;
  }

  send(message: AgentMessage): boolean {
    if (this.ws?.readyState !== WebSocket.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  /** Closes the connection for good and waits (briefly) for the close handshake. */
  async close(): Promise<void> {
    this.stopped = true;
    if (this.retryTimer) clearTimeout(this.retryTimer);
    const ws = this.ws;
    if (!ws || ws.readyState === WebSocket.CLOSED) return;
    await new Promise<void>((resolve) => {
      const force = setTimeout(() => {
        ws.terminate();
        resolve();
      }, 1000);
      ws.once('close', () => {
        clearTimeout(force);
        resolve();
      });
      if (ws.readyState === WebSocket.CONNECTING) ws.terminate();
      else ws.close(1001, 'agent shutting down');
    });
  }

  private connect(): void {
    this.retryTimer = null;
    if (this.stopped) return;
    this.fatal = null;
    this.refusedVersion = false;
    this.lastError = null;
    const url = new URL(this.options.url);
    const ws = new WebSocket(url, {
      headers: this.options.headers,
      agent: webSocketAgent(url, this.options.proxy),
      maxPayload: PROTOCOL_LIMITS.maxMessageBytes,
      handshakeTimeout: WELCOME_TIMEOUT_MS,
    });
    this.ws = ws;
    ws.on('unexpected-response', (_req, res) => {
      const status = res.statusCode ?? 0;
      res.resume();
      if (status === 401 || status === 403) {
        this.fatal = `the control plane refused the key (HTTP ${status}): check API_KEY`;
      } else {
        this.lastError = `the control plane answered the upgrade with HTTP ${status}`;
      }
      ws.terminate();
    });
    ws.on('open', () => {
      this.send(this.options.hello(this.offered));
      this.after(WELCOME_TIMEOUT_MS, () => {
        if (!this.welcomed) {
          this.lastError = 'no welcome from the control plane';
          ws.terminate();
        }
      });
    });
    ws.on('message', (data, isBinary) => {
      if (!isBinary) this.receive(data.toString());
    });
    ws.on('error', (error) => {
      this.lastError = error.message;
    });
    ws.on('close', (code, reason) => this.closed(ws, code, reason.toString()));
  }

  private receive(text: string): void {
    let parsed: ReturnType<typeof parseControlMessage>;
    try {
      parsed = parseControlMessage(JSON.parse(text));
    } catch {
      this.options.log.warn('ignored a message from the control plane that is not JSON');
      return;
    }
    if (!parsed.ok) {
      const type = (safeJson(text) as { type?: unknown } | null)?.type;
      this.options.log.warn(
        { type: String(type), problems: parsed.problems },
        'ignored a message the protocol does not allow',
      );
      return;
    }
    const message = parsed.message;
    switch (message.type) {
      case 'welcome':
        this.welcomed = true;
        this.welcomedVersion = message.protocolVersion;
        this.options.backoff.reset();
        this.startKeepAlive(message.heartbeatIntervalMs);
        this.options.onWelcome(message);
        return;
      case 'run':
        if (this.welcomed) this.options.onRun(message);
        return;
      case 'cancel':
        this.options.onCancel(message.runId);
        return;
      case 'error':
        if (message.code === 'UNSUPPORTED_PROTOCOL') this.refusedVersion = true;
        if (message.fatal) this.fatal = `${message.code}: ${message.message}`;
        else this.options.log.warn({ code: message.code }, `the control plane reported: ${message.message}`);
        return;
    }
  }

  private startKeepAlive(heartbeatIntervalMs: number): void {
    const ws = this.ws;
    this.repeat(Math.max(100, heartbeatIntervalMs), () => {
      this.send({ type: 'heartbeat', ...this.options.heartbeat() });
    });
    let answered = true;
    ws?.on('pong', () => {
      answered = true;
    });
    this.repeat(PING_INTERVAL_MS, () => {
      if (!answered) {
        this.lastError = 'the control plane stopped answering pings';
        ws?.terminate();
        return;
      }
      answered = false;
      if (ws?.readyState === WebSocket.OPEN) ws.ping();
    });
  }

  /** Timers of this connection end with it. */
  private after(ms: number, action: () => void): void {
    this.timers.push(setTimeout(action, ms).unref());
  }

  private repeat(ms: number, action: () => void): void {
    this.timers.push(setInterval(action, ms).unref());
  }

  private closed(ws: WebSocket, code: number, reason: string): void {
    if (this.ws !== ws) return;
    for (const timer of this.timers) clearTimeout(timer);
    this.timers = [];
    this.ws = null;
    const wasWelcomed = this.welcomed;
    this.welcomed = false;
    if (wasWelcomed) this.options.onDisconnect();
    if (this.stopped) return;

    const { log } = this.options;
    const older = SUPPORTED_PROTOCOL_VERSIONS.filter((v) => v < this.offered).at(-1);
    if ((this.refusedVersion || code === CLOSE_CODES.unsupportedProtocol) && older !== undefined) {
      // An older control plane: offer the next older version at once (docs/protocol.md, Versioning).
      log.info(`the control plane does not speak protocol version ${this.offered}; offering ${older}`);
      this.offered = older;
      this.schedule(0);
      return;
    }
    if (!this.fatal && FATAL_CLOSE_CODES.has(code)) this.fatal = `closed with code ${code} ${reason}`.trim();
    if (this.fatal) {
      const minutes = Math.round(this.options.fatalRetryMs / 60_000);
      const wait =
        minutes >= 1 ? `${minutes} minute${minutes === 1 ? '' : 's'}` : `${this.options.fatalRetryMs} ms`;
      log.error(`The control plane refused this agent (${this.fatal}); trying again in ${wait}`);
      this.schedule(this.options.fatalRetryMs);
      return;
    }
    const delay = this.options.backoff.next();
    log.warn(
      { code, reason: reason || undefined, error: this.lastError ?? undefined, retryInMs: delay },
      wasWelcomed ? 'lost the connection to the control plane' : 'could not connect to the control plane',
    );
    this.schedule(delay);
  }

  private schedule(delayMs: number): void {
    this.retryTimer = setTimeout(() => this.connect(), delayMs);
    this.retryTimer.unref();
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
