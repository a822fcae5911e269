/**
 * A stand-in control plane for the few agent tests the real one (src/server, started by test/support/server.ts)
 * cannot serve, because they are about answers the real control plane never gives but an agent must survive:
 * an UNSUPPORTED_PROTOCOL refusal (the real one speaks the agent's protocol version), messages that are not JSON
 * or not of the protocol, a check that does not validate (the real one validates every check with the same
 * model), a run sent without credit or after the agent's `release`, a result refused for good (4xx), and a batch
 * of results refused as a whole. It speaks the protocol version the test says, batch uploads included.
 *
 * The test drives it message by message: `send` puts any text on the agent's connection. Every message from
 * the agent and every result body is checked against the src/protocol schemas; anything off goes to
 * `violations`.
 */
import { randomUUID } from 'node:crypto';
import { once } from 'node:events';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { type WebSocket, WebSocketServer } from 'ws';
import {
  AGENT_PATHS,
  type AgentMessage,
  agentMessage,
  CLOSE_CODES,
  type ControlMessage,
  idempotencyKey,
  PROTOCOL_LIMITS,
  parseLocationKey,
  type ResultUpload,
  type RunMessage,
  resultBatch,
  resultUpload,
  SUPPORTED_PROTOCOL_VERSIONS,
} from '../../src/protocol/index.js';

/** A private-location key of the form the agent needs; the fake accepts only this one. */
export const FAKE_KEY = 'pl_acme.berlin-1.Sup3rSecretKeyValue_42xyz';

export class FakeControlPlane {
  /** Messages from the agent, in order, over every connection. */
  readonly messages: AgentMessage[] = [];
  readonly violations: string[] = [];
  /** The first copy of each result, by idempotency key. */
  readonly results = new Map<string, ResultUpload>();
  /** Upgrade attempts (accepted or not). */
  upgrades = 0;
  /** The protocol versions it speaks: a hello of any other is answered UNSUPPORTED_PROTOCOL and closed with 4400. */
  speaks: readonly number[] = SUPPORTED_PROTOCOL_VERSIONS;
  /** Answer result uploads with this status (and record nothing). */
  resultStatus: number | null = null;
  /** Per upload: a status to answer it with (recording nothing), or null to take it. */
  answerResult: ((upload: ResultUpload) => number | null) | null = null;
  /** Answer batch uploads as a whole with this status (and record nothing); null to answer each result. */
  batchStatus: number | null = null;
  /** Uploads that came one per request, and batches (each a list of idempotency keys), in order. */
  readonly singles: string[] = [];
  readonly batches: string[][] = [];
  /** The protocol version the open connection was welcomed in. */
  private welcomed = 0;

  private connection: WebSocket | null = null;

  private constructor(
    private readonly http: Server,
    readonly port: number,
  ) {}

  static async start(): Promise<FakeControlPlane> {
    const http = createServer();
    http.listen(0, '127.0.0.1');
    await once(http, 'listening');
    const fake = new FakeControlPlane(http, (http.address() as AddressInfo).port);
    fake.serve();
    return fake;
  }

  get url(): string {
    return `http://127.0.0.1:${this.port}`;
  }

  /** A run message for a check, as a control plane would send it. */
  run(check: Record<string, unknown>): RunMessage {
    return {
      type: 'run',
      runId: randomUUID(),
      checkSessionId: randomUUID(),
      attempt: 1,
      runSource: 'SCHEDULER',
      runLocation: 'berlin-1',
      check,
      inheritedVariables: [],
      clientCertificates: [],
      leaseExpiresAt: new Date(Date.now() + PROTOCOL_LIMITS.leaseTtlMs).toISOString(),
    };
  }

  /** Sends a message (or any text) on the agent's open connection. */
  send(message: ControlMessage | string): void {
    if (!this.connection) throw new Error('no agent is connected');
    this.connection.send(typeof message === 'string' ? message : JSON.stringify(message));
  }

  /** Messages of one type from the agent, in order. */
  received<T extends AgentMessage['type']>(type: T): Extract<AgentMessage, { type: T }>[] {
    return this.messages.filter((m): m is Extract<AgentMessage, { type: T }> => m.type === type);
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

  async stop(): Promise<void> {
    this.connection?.terminate();
    this.http.closeAllConnections();
    await new Promise<void>((resolve) => this.http.close(() => resolve()));
  }

  private serve(): void {
    const wss = new WebSocketServer({ noServer: true, maxPayload: PROTOCOL_LIMITS.maxMessageBytes });
    this.http.on('upgrade', (req, socket, head) => {
      this.upgrades++;
      if (req.url !== AGENT_PATHS.connect || !this.authorized(req)) {
        socket.end('HTTP/1.1 401 Unauthorized\r\nConnection: close\r\nContent-Length: 0\r\n\r\n');
        return;
      }
      wss.handleUpgrade(req, socket, head, (ws) => this.accept(ws));
    });
    this.http.on('request', (req, res) => {
      this.route(req, res).catch((error: Error) => {
        this.violations.push(`handler error: ${error.message}`);
        if (!res.headersSent) res.writeHead(500).end();
      });
    });
  }

  private authorized(req: IncomingMessage): boolean {
    return (
      req.headers.authorization === `Bearer ${FAKE_KEY}` &&
      req.headers['x-service-account'] === parseLocationKey(FAKE_KEY)?.accountId
    );
  }

  private accept(ws: WebSocket): void {
    ws.on('message', (data) => {
      const parsed = agentMessage.safeParse(safeJson(data.toString()));
      if (!parsed.success) {
        this.violations.push(`invalid message: ${data.toString().slice(0, 200)}`);
        return;
      }
      this.messages.push(parsed.data);
      const hello = parsed.data;
      if (hello.type !== 'hello') return;
      if (!this.speaks.includes(hello.protocolVersion)) {
        ws.send(
          JSON.stringify({
            type: 'error',
            code: 'UNSUPPORTED_PROTOCOL',
            message: 'refused by the test',
            fatal: true,
          }),
        );
        ws.close(CLOSE_CODES.unsupportedProtocol, 'UNSUPPORTED_PROTOCOL');
        return;
      }
      this.connection = ws;
      this.welcomed = hello.protocolVersion;
      ws.send(
        JSON.stringify({
          type: 'welcome',
          protocolVersion: hello.protocolVersion,
          location: 'berlin-1',
          heartbeatIntervalMs: 200,
          leaseTtlMs: PROTOCOL_LIMITS.leaseTtlMs,
        }),
      );
    });
    ws.on('close', () => {
      if (this.connection === ws) this.connection = null;
    });
  }

  private async route(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const json = (status: number, body: unknown): void => {
      res.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(body));
    };
    const chunks: Buffer[] = [];
    for await (const chunk of req) chunks.push(chunk as Buffer);
    if (!this.authorized(req)) return json(401, { message: 'wrong key' });
    if (req.method === 'POST' && req.url === AGENT_PATHS.errors) return json(201, { id: 1 });
    if (req.method === 'POST' && req.url === AGENT_PATHS.resultBatch) {
      return this.batch(safeJson(Buffer.concat(chunks).toString('utf8')), json);
    }
    if (req.method !== 'POST' || req.url !== AGENT_PATHS.results) return json(404, { message: 'not found' });
    const parsed = resultUpload.safeParse(safeJson(Buffer.concat(chunks).toString('utf8')));
    if (!parsed.success) {
      this.violations.push(`invalid result: ${parsed.error.message}`);
      return json(400, { message: 'invalid result' });
    }
    const key = idempotencyKey(parsed.data.runId, parsed.data.attempt);
    if (req.headers['idempotency-key'] !== key) {
      this.violations.push(`result ${key} sent with Idempotency-Key ${req.headers['idempotency-key']}`);
    }
    this.singles.push(key);
    const { statusCode, ...answer } = this.take(parsed.data);
    json(statusCode, statusCode === 200 ? answer : { message: 'refused by the test' });
  }

  /** A batch upload, which only an agent welcomed in version 2 may send: each result answered on its own. */
  private batch(body: unknown, json: (status: number, body: unknown) => void): void {
    if (this.welcomed < 2)
      this.violations.push(`a batch of results on a version ${this.welcomed} connection`);
    const parsed = resultBatch.safeParse(body);
    if (!parsed.success) {
      this.violations.push(`invalid batch: ${parsed.error.message}`);
      json(400, { message: 'invalid batch' });
      return;
    }
    this.batches.push(parsed.data.results.map((upload) => idempotencyKey(upload.runId, upload.attempt)));
    if (this.batchStatus !== null) json(this.batchStatus, { message: 'refused by the test' });
    else json(200, { results: parsed.data.results.map((upload) => this.take(upload)) });
  }

  /** Records the first copy of a result, or refuses it as the test says; the answer of one result. */
  private take(upload: ResultUpload): { statusCode: number } & Record<string, unknown> {
    const refusal = this.resultStatus ?? this.answerResult?.(upload) ?? null;
    if (refusal !== null) {
      return { statusCode: refusal, error: 'Refused', message: 'refused by the test', attributes: {} };
    }
    const key = idempotencyKey(upload.runId, upload.attempt);
    const duplicate = this.results.has(key);
    if (!duplicate) this.results.set(key, upload);
    return { statusCode: 200, recorded: !duplicate, duplicate };
  }
}

function safeJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return null;
  }
}
