import WebSocket from 'ws';
import { CHECK_TYPES, type CheckType } from '../../../src/checks/index.js';
import {
  AGENT_PATHS,
  type ControlMessage,
  PROTOCOL_VERSION,
  parseControlMessage,
  type ResultUpload,
  type RunMessage,
  resultAck,
  resultBatchAnswer,
} from '../../../src/protocol/index.js';

/** A minimal agent speaking docs/protocol.md with the schemas of src/protocol: enough to drive the gateway. */
export class TestAgent {
  readonly received: ControlMessage[] = [];
  closeCode: number | null = null;
  private waiters: (() => void)[] = [];

  private constructor(
    readonly ws: WebSocket,
    readonly baseUrl: string,
    readonly key: string,
    readonly accountId: string,
    readonly agentId: string,
  ) {
    ws.on('message', (data) => {
      // Every message of the control plane must be one of the protocol's.
      const parsed = parseControlMessage(JSON.parse(data.toString()));
      if (!parsed.ok) throw new Error(`not a message of the protocol: ${parsed.problems.join('; ')}`);
      this.received.push(parsed.message);
      this.wake();
    });
    ws.on('close', (code) => {
      this.closeCode = code;
      this.wake();
    });
  }

  /** Opens the WebSocket with the key; resolves once open (rejects with the HTTP status of a refusal). */
  static async open(
    baseUrl: string,
    key: string,
    accountId: string,
    agentId = 'agent-1',
  ): Promise<TestAgent> {
    const ws = new WebSocket(`${baseUrl.replace(/^http/, 'ws')}${AGENT_PATHS.connect}`, {
      headers: { authorization: `Bearer ${key}`, 'x-service-account': accountId },
    });
    await new Promise<void>((resolve, reject) => {
      ws.once('open', () => resolve());
      ws.once('unexpected-response', (_request, response) =>
        reject(new Error(`HTTP ${response.statusCode}`)),
      );
      ws.once('error', reject);
    });
    return new TestAgent(ws, baseUrl, key, accountId, agentId);
  }

  /** Opens, says hello, and waits for welcome. */
  static async connect(
    baseUrl: string,
    key: string,
    accountId: string,
    options: {
      agentId?: string;
      unavailable?: CheckType[];
      running?: string[];
      protocolVersion?: number;
    } = {},
  ): Promise<TestAgent> {
    const agent = await TestAgent.open(baseUrl, key, accountId, options.agentId);
    agent.hello({
      unavailable: options.unavailable,
      running: options.running,
      protocolVersion: options.protocolVersion,
    });
    await agent.next('welcome');
    return agent;
  }

  /** Says hello; `engines` (from version 2 on) defaults to every engine there is, and is left out of a version 1 hello. */
  hello(
    options: {
      protocolVersion?: number;
      unavailable?: CheckType[];
      running?: string[];
      engines?: string[];
    } = {},
  ): void {
    const protocolVersion = options.protocolVersion ?? PROTOCOL_VERSION;
    const engines = options.engines ?? ['node22', 'node24', 'node26', 'bun1.3'];
    const capabilities = Object.fromEntries(
      CHECK_TYPES.map((kind) => {
        const missing = options.unavailable?.includes(kind) ?? false;
        return [kind, { available: !missing, reason: missing ? `${kind} is not available here` : null }];
      }),
    );
    this.send({
      type: 'hello',
      protocolVersion,
      agentId: this.agentId,
      agentVersion: '1.2.3',
      hostname: 'test-host',
      platform: 'linux',
      nodeVersion: process.version,
      runtimes: ['2026.04'],
      ...(protocolVersion >= 2 || options.engines ? { engines } : {}),
      capabilities,
      slots: { light: 4, browser: 1 },
      running: options.running ?? [],
    });
  }

  credit(light: number, browser = 0): void {
    this.send({ type: 'credit', credits: { light, browser } });
  }

  heartbeat(running: string[]): void {
    this.send({ type: 'heartbeat', running, queued: 0 });
  }

  release(runIds: string[]): void {
    this.send({ type: 'release', runIds });
  }

  send(message: unknown): void {
    this.ws.send(JSON.stringify(message));
  }

  /** The next not yet taken message of a type (waits for it). */
  async next<T extends ControlMessage['type']>(
    type: T,
    timeoutMs = 5000,
  ): Promise<Extract<ControlMessage, { type: T }>> {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const index = this.received.findIndex((m) => m.type === type);
      if (index >= 0) return this.received.splice(index, 1)[0] as Extract<ControlMessage, { type: T }>;
      const left = deadline - Date.now();
      if (left <= 0)
        throw new Error(`no ${type} message within ${timeoutMs} ms (got ${JSON.stringify(this.received)})`);
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, left);
        this.waiters.push(() => {
          clearTimeout(timer);
          resolve();
        });
      });
    }
  }

  /** Waits until the server closed the connection; returns the close code. */
  async closed(timeoutMs = 5000): Promise<number> {
    const deadline = Date.now() + timeoutMs;
    while (this.closeCode === null && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    if (this.closeCode === null) throw new Error('the connection stayed open');
    return this.closeCode;
  }

  /** Posts a result the way an agent does, with its idempotency key. */
  async postResult(
    run: RunMessage,
    result: Record<string, unknown>,
    options: { networkError?: boolean; permanentError?: boolean; status?: ResultUpload['status'] } = {},
  ): Promise<{ status: number; body: any }> {
    const upload = this.upload(run, result, options);
    const response = await fetch(`${this.baseUrl}${AGENT_PATHS.results}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.key}`,
        'x-service-account': this.accountId,
        'content-type': 'application/json',
        'idempotency-key': `${run.runId}:${run.attempt}`,
      },
      body: JSON.stringify(upload),
    });
    const body = await response.json();
    if (response.status === 200) resultAck.parse(body);
    return { status: response.status, body };
  }

  /** The upload of a result, as `postResult` sends it. */
  upload(
    run: RunMessage,
    result: Record<string, unknown>,
    options: { networkError?: boolean; permanentError?: boolean; status?: ResultUpload['status'] } = {},
  ): ResultUpload {
    return {
      runId: run.runId,
      attempt: run.attempt,
      agentId: this.agentId,
      status: options.status ?? (result.hasFailures || result.hasErrors ? 'FAILED' : 'PASSED'),
      result,
      networkError: options.networkError ?? false,
      ...(options.permanentError ? { permanentError: true } : {}),
    };
  }

  /** Posts a batch of uploads (or anything else as `results`); a 200 answer must match the protocol's schema. */
  async postBatch(results: unknown): Promise<{ status: number; body: any }> {
    const response = await fetch(`${this.baseUrl}${AGENT_PATHS.resultBatch}`, {
      method: 'POST',
      headers: {
        authorization: `Bearer ${this.key}`,
        'x-service-account': this.accountId,
        'content-type': 'application/json',
      },
      body: JSON.stringify({ results }),
    });
    const body = await response.json();
    if (response.status === 200) resultBatchAnswer.parse(body);
    return { status: response.status, body };
  }

  close(): void {
    this.ws.close();
  }

  private wake(): void {
    const waiters = this.waiters;
    this.waiters = [];
    for (const wake of waiters) wake();
  }
}

/** A result record of an API check as an agent reports it: passed, or failed with a request error. */
export function apiResult(outcome: { failed?: string; degraded?: boolean } = {}): Record<string, unknown> {
  const startedAt = new Date();
  return {
    checkResultId: 'agent-made-id',
    hasErrors: outcome.failed !== undefined,
    hasFailures: false,
    isDegraded: outcome.degraded ?? false,
    overMaxResponseTime: false,
    aborted: false,
    isCancelled: false,
    responseTime: 12,
    startedAt: startedAt.toISOString(),
    stoppedAt: new Date(startedAt.getTime() + 12).toISOString(),
    apiCheckResult: {
      assertions: [],
      request: { method: 'GET', url: 'http://127.0.0.1:9/health', data: '', headers: {}, params: {} },
      response: null,
      requestError: outcome.failed ?? null,
      jobLog: [],
    },
  };
}
