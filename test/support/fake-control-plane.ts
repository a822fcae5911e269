/**
 * A small control plane that speaks the agent protocol faithfully, for agent tests until the real one exists:
 * WebSocket pull with credits and a run queue, result, artifact and error-report routes. Every message and body
 * is checked against the src/protocol schemas; anything off is recorded in `violations`. It can refuse keys,
 * fail requests, drop connections, and go down and come back on the same port.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import type { CheckType } from '../../src/checks/index.js';
import {
  AGENT_PATHS,
  type AgentMessage,
  agentMessage,
  type ControlMessage,
  type ErrorReport,
  errorReport,
  type HelloMessage,
  idempotencyKey,
  PROTOCOL_LIMITS,
  parseLocationKey,
  type ResultUpload,
  type RunMessage,
  resultUpload,
  SLOT_CLASSES,
  type SlotClass,
  type SlotCounts,
  slotClassOf,
} from '../../src/protocol/index.js';

/** One agent connection as the control plane sees it. */
export interface FakeConnection {
  ws: WebSocket;
  hello: HelloMessage | null;
  messages: AgentMessage[];
  /** Credit granted and not used yet. */
  credit: SlotCounts;
  /** Credit granted over the whole connection. */
  granted: SlotCounts;
  /** Runs sent on this connection. */
  sent: string[];
  open: boolean;
}

export interface ReceivedArtifact {
  runId: string;
  name: string;
  contentType: string;
  contentLength: number;
  bytes: number;
  chunks: number;
}

export interface FakeBehaviour {
  /** Answer WebSocket upgrades with this HTTP status instead of accepting them. */
  upgradeStatus: number | null;
  /** Answer the hello with this error and close with this code. */
  refuse: { code: 'UNSUPPORTED_PROTOCOL' | 'UNAUTHORIZED' | 'REVOKED'; closeCode: number } | null;
  /** Answer result uploads with this status (and record nothing). */
  resultStatus: number | null;
  /** Artifact uploads still to fail with 503. */
  artifactFailures: number;
}

const ROUTE_ARTIFACT = /^\/v1\/agent\/runs\/([^/]+)\/artifacts\/([^/]+)$/;

export class FakeControlPlane {
  readonly connections: FakeConnection[] = [];
  readonly violations: string[] = [];
  /** The first copy of each result, by idempotency key. */
  readonly results = new Map<string, ResultUpload>();
  /** Every result upload that was recorded or acknowledged as a duplicate, in order. */
  readonly resultPosts: { key: string; duplicate: boolean }[] = [];
  readonly errorReports: ErrorReport[] = [];
  readonly artifacts: ReceivedArtifact[] = [];
  /** Runs waiting for credit, oldest first. */
  readonly queue: RunMessage[] = [];
  /** Every upgrade attempt (accepted or not). */
  upgrades = 0;
  readonly behaviour: FakeBehaviour = {
    upgradeStatus: null,
    refuse: null,
    resultStatus: null,
    artifactFailures: 0,
  };

  private http: Server | null = null;
  private wss: WebSocketServer | null = null;
  private readonly sockets = new Set<Socket>();
  port = 0;

  private constructor(
    private readonly apiKey: string,
    private readonly heartbeatIntervalMs: number,
  ) {}

  static async start(
    options: { apiKey: string; heartbeatIntervalMs?: number; port?: number } = { apiKey: '' },
  ): Promise<FakeControlPlane> {
    const fake = new FakeControlPlane(options.apiKey, options.heartbeatIntervalMs ?? 200);
    await fake.listen(options.port ?? 0);
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  get location(): string {
    return parseLocationKey(this.apiKey)?.location ?? '';
  }

  /** Connections that are open and welcomed. */
  get live(): FakeConnection[] {
    return this.connections.filter((c) => c.open && c.hello !== null);
  }

  /** A run message for a check, as the control plane would send it. */
  run(check: Record<string, unknown>, overrides: Partial<RunMessage> = {}): RunMessage {
    return {
      type: 'run',
      runId: randomUUID(),
      checkSessionId: randomUUID(),
      attempt: 1,
      runSource: 'SCHEDULER',
      runLocation: this.location,
      check,
      inheritedVariables: [],
      clientCertificates: [],
      leaseExpiresAt: new Date(Date.now() + PROTOCOL_LIMITS.leaseTtlMs).toISOString(),
      ...overrides,
    };
  }

  /** Queues a run; it is sent to an agent as soon as one has credit for it. */
  enqueue(run: RunMessage): RunMessage {
    this.queue.push(run);
    this.dispatch();
    return run;
  }

  cancel(runId: string): void {
    for (const connection of this.live) this.send(connection, { type: 'cancel', runId });
  }

  /** Sends a message on every live connection. */
  broadcast(message: ControlMessage): void {
    for (const connection of this.live) this.send(connection, message);
  }

  /** Closes every agent connection abruptly (the control plane stays up). */
  dropConnections(): void {
    for (const connection of this.connections) if (connection.open) connection.ws.terminate();
  }

  /** Goes down: no WebSocket, no HTTP, connections refused. State is kept for `restart`. */
  async stop(): Promise<void> {
    for (const client of this.wss?.clients ?? []) client.terminate();
    this.wss?.close();
    for (const socket of this.sockets) socket.destroy();
    const http = this.http;
    this.http = null;
    this.wss = null;
    if (http) await new Promise<void>((resolve) => http.close(() => resolve()));
  }

  /** Comes back on the same port. */
  async restart(): Promise<void> {
    await this.listen(this.port);
  }

  async waitFor<T>(what: string, probe: () => T | undefined | null | false, timeoutMs = 10_000): Promise<T> {
    const end = Date.now() + timeoutMs;
    for (;;) {
      const value = probe();
      if (value) return value;
      if (Date.now() > end) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 15));
    }
  }

  /** Messages of one type received on every connection, in order. */
  received<T extends AgentMessage['type']>(type: T): Extract<AgentMessage, { type: T }>[] {
    return this.connections.flatMap((c) =>
      c.messages.filter((m): m is Extract<AgentMessage, { type: T }> => m.type === type),
    );
  }

  private async listen(port: number): Promise<void> {
    const http = createServer((req, res) => {
      this.route(req, res).catch((error: Error) => {
        this.violations.push(`handler error: ${error.message}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
    http.on('connection', (socket) => {
      this.sockets.add(socket);
      socket.on('close', () => this.sockets.delete(socket));
    });
    const wss = new WebSocketServer({ noServer: true, maxPayload: PROTOCOL_LIMITS.maxMessageBytes });
    http.on('upgrade', (req, socket, head) => {
      this.upgrades++;
      const problem = this.authProblem(req);
      const status = this.behaviour.upgradeStatus ?? (problem ? 401 : null);
      if (req.url !== AGENT_PATHS.connect || status !== null) {
        socket.end(`HTTP/1.1 ${status ?? 404} Refused\r\nConnection: close\r\nContent-Length: 0\r\n\r\n`);
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
    http.listen(port, '127.0.0.1');
    await once(http, 'listening');
    this.port = (http.address() as AddressInfo).port;
    this.http = http;
    this.wss = wss;
  }

  private authProblem(req: IncomingMessage): string | null {
    const key = parseLocationKey(this.apiKey);
    if (req.headers.authorization !== `Bearer ${this.apiKey}`) return 'wrong or missing bearer key';
    if (req.headers['x-service-account'] !== key?.accountId) return 'wrong or missing x-service-account';
    return null;
  }

  private accept(ws: WebSocket): void {
    const connection: FakeConnection = {
      ws,
      hello: null,
      messages: [],
      credit: { light: 0, browser: 0 },
      granted: { light: 0, browser: 0 },
      sent: [],
      open: true,
    };
    this.connections.push(connection);
    ws.on('close', () => {
      connection.open = false;
    });
    ws.on('message', (data) => this.onMessage(connection, data.toString()));
  }

  private onMessage(connection: FakeConnection, text: string): void {
    let json: unknown;
    try {
      json = JSON.parse(text);
    } catch {
      this.violations.push(`not JSON: ${text.slice(0, 100)}`);
      return;
    }
    const parsed = agentMessage.safeParse(json);
    if (!parsed.success) {
      this.violations.push(`invalid message: ${text.slice(0, 200)}: ${parsed.error.message}`);
      return;
    }
    const message = parsed.data;
    connection.messages.push(message);
    if (connection.hello === null && message.type !== 'hello') {
      this.violations.push(`${message.type} before hello`);
      return;
    }
    switch (message.type) {
      case 'hello': {
        if (connection.hello) this.violations.push('second hello');
        const refuse = this.behaviour.refuse;
        if (refuse) {
          this.send(connection, {
            type: 'error',
            code: refuse.code,
            message: 'refused by the test',
            fatal: true,
          });
          connection.ws.close(refuse.closeCode, refuse.code);
          return;
        }
        connection.hello = message;
        this.send(connection, {
          type: 'welcome',
          protocolVersion: 1,
          location: this.location,
          heartbeatIntervalMs: this.heartbeatIntervalMs,
          leaseTtlMs: PROTOCOL_LIMITS.leaseTtlMs,
        });
        return;
      }
      case 'credit':
        for (const c of SLOT_CLASSES) {
          connection.credit[c] += message.credits[c];
          connection.granted[c] += message.credits[c];
          const slots = connection.hello?.slots[c] ?? 0;
          if (connection.credit[c] > slots) {
            this.violations.push(`unused ${c} credit ${connection.credit[c]} exceeds the ${slots} slots`);
          }
        }
        this.dispatch();
        return;
      case 'release':
        this.queue.unshift(
          ...message.runIds.flatMap((id) => {
            const run = this.sentRuns.get(id);
            return run ? [run] : [];
          }),
        );
        this.dispatch();
        return;
      case 'heartbeat':
        return;
    }
  }

  private readonly sentRuns = new Map<string, RunMessage>();

  /** Sends queued runs to live connections with credit for their class. */
  private dispatch(): void {
    for (let i = 0; i < this.queue.length; ) {
      const run = this.queue[i] as RunMessage;
      const kind = run.check.checkType as CheckType;
      const slotClass: SlotClass = typeof kind === 'string' ? slotClassOf(kind) : 'light';
      const connection = this.live.find((c) => c.credit[slotClass] > 0);
      if (!connection) {
        i++;
        continue;
      }
      connection.credit[slotClass]--;
      connection.sent.push(run.runId);
      this.sentRuns.set(run.runId, run);
      this.queue.splice(i, 1);
      this.send(connection, run);
    }
  }

  private send(connection: FakeConnection, message: ControlMessage): void {
    if (connection.open) connection.ws.send(JSON.stringify(message));
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = (status: number, body: unknown) => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const problem = this.authProblem(req);
    if (problem) {
      this.violations.push(`${req.method} ${req.url}: ${problem}`);
      req.resume();
      json(401, { message: problem });
      return;
    }
    const artifact = ROUTE_ARTIFACT.exec(req.url ?? '');
    if (req.method === 'PUT' && artifact) return this.artifact(req, artifact, json);
    const body = await readJson(req);
    if (req.method === 'POST' && req.url === AGENT_PATHS.results) {
      const parsed = resultUpload.safeParse(body);
      if (!parsed.success) {
        this.violations.push(`invalid result: ${parsed.error.message}`);
        return json(400, { message: 'invalid result' });
      }
      const key = idempotencyKey(parsed.data.runId, parsed.data.attempt);
      if (req.headers['idempotency-key'] !== key) {
        this.violations.push(`result ${key} sent with Idempotency-Key ${req.headers['idempotency-key']}`);
      }
      if (this.behaviour.resultStatus !== null) return json(this.behaviour.resultStatus, { message: 'test' });
      const duplicate = this.results.has(key);
      if (!duplicate) this.results.set(key, parsed.data);
      this.resultPosts.push({ key, duplicate });
      return json(200, { recorded: !duplicate, duplicate });
    }
    if (req.method === 'POST' && req.url === AGENT_PATHS.errors) {
      const parsed = errorReport.safeParse(body);
      if (!parsed.success) {
        this.violations.push(`invalid error report: ${parsed.error.message}`);
        return json(400, { message: 'invalid report' });
      }
      this.errorReports.push(parsed.data);
      return json(202, {});
    }
    json(404, { message: 'not found' });
  }

  private async artifact(
    req: IncomingMessage,
    [, runId = '', name = '']: RegExpExecArray,
    json: (status: number, body: unknown) => void,
  ): Promise<void> {
    const contentLength = Number(req.headers['content-length']);
    if (!(contentLength <= PROTOCOL_LIMITS.artifactBytes)) {
      this.violations.push(`artifact of ${req.headers['content-length']} bytes offered`);
      req.resume();
      return json(413, { message: 'too large' });
    }
    let bytes = 0;
    let chunks = 0;
    for await (const chunk of req) {
      bytes += (chunk as Buffer).length;
      chunks++;
    }
    if (this.behaviour.artifactFailures > 0) {
      this.behaviour.artifactFailures--;
      return json(503, { message: 'try again' });
    }
    const decoded = { runId: decodeURIComponent(runId), name: decodeURIComponent(name) };
    this.artifacts.push({
      ...decoded,
      contentType: String(req.headers['content-type']),
      contentLength,
      bytes,
      chunks,
    });
    json(201, { url: `${this.url}/artifacts/${runId}/${name}` });
  }
}

async function readJson(req: IncomingMessage): Promise<unknown> {
  const chunks: Buffer[] = [];
  for await (const chunk of req) chunks.push(chunk as Buffer);
  const text = Buffer.concat(chunks).toString('utf8');
  try {
    return text === '' ? null : JSON.parse(text);
  } catch {
    return null;
  }
}
