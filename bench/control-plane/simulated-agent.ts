/**
 * An agent that is never the limit: it speaks the protocol (the test client of test/server/runs, built on the
 * schemas of src/protocol), holds `credits` runs at once, and has a PASS result for each run the moment it starts.
 * Like the real agent on protocol version 3 it holds a run sent ahead until its start (`startInMs`), and uploads
 * results in batches: a result waits at most BATCH_LINGER_MS for others, and a batch holds at most the protocol's
 * batch size. Each run's slot is granted again once its batch is answered.
 */
import { PROTOCOL_LIMITS, type ResultUpload, type RunMessage } from '../../src/protocol/index.js';
import { apiResult, TestAgent } from '../../test/server/runs/agent-client.js';

/** As the real agent (src/agent/delivery/results.ts). */
const BATCH_LINGER_MS = 100;

export class SimulatedAgent {
  /** When each run arrived (epoch ms), by check session. */
  readonly received = new Map<string, number>();
  /** Uploads the control plane did not take with a 200, by status (0: no answer). */
  readonly refused = new Map<number, number>();
  /** Runs whose result upload has been answered so far. */
  answered = 0;
  private readonly inFlight = new Set<string>();
  private closed = false;
  private readonly heartbeat: NodeJS.Timeout;

  private constructor(private readonly client: TestAgent) {
    client.ws.on('message', () => this.take());
    this.heartbeat = setInterval(
      () => client.heartbeat([...this.inFlight].slice(0, 1000)),
      PROTOCOL_LIMITS.heartbeatIntervalMs,
    );
  }

  static async connect(
    url: string,
    key: string,
    accountId: string,
    agentId: string,
    credits: number,
  ): Promise<SimulatedAgent> {
    const agent = new SimulatedAgent(await TestAgent.connect(url, key, accountId, { agentId }));
    agent.client.credit(credits);
    return agent;
  }

  /** Runs whose result is being uploaded now. */
  get running(): number {
    return this.inFlight.size;
  }

  close(): void {
    this.closed = true;
    clearInterval(this.heartbeat);
    this.client.close();
  }

  private take(): void {
    for (const message of this.client.received.splice(0)) {
      if (message.type !== 'run') continue;
      this.inFlight.add(message.runId);
      const startInMs = message.startInMs ?? 0;
      if (startInMs > 0) setTimeout(() => this.answer(message, Date.now()), startInMs);
      else this.answer(message, Date.now());
    }
  }

  private pending: { runId: string; upload: ResultUpload }[] = [];
  private linger: NodeJS.Timeout | null = null;

  private answer(run: RunMessage, at: number): void {
    if (this.closed) return;
    this.received.set(run.checkSessionId, at);
    this.pending.push({ runId: run.runId, upload: this.client.upload(run, apiResult()) });
    if (this.pending.length >= PROTOCOL_LIMITS.resultBatchSize) this.flush();
    else this.linger ??= setTimeout(() => this.flush(), BATCH_LINGER_MS);
  }

  private flush(): void {
    if (this.linger) clearTimeout(this.linger);
    this.linger = null;
    while (this.pending.length > 0) void this.send(this.pending.splice(0, PROTOCOL_LIMITS.resultBatchSize));
  }

  private async send(batch: { runId: string; upload: ResultUpload }[]): Promise<void> {
    const answer = await this.client
      .postBatch(batch.map((b) => b.upload))
      .catch(() => ({ status: 0, body: null }));
    const statuses: number[] =
      answer.status === 200
        ? answer.body.results.map((r: { statusCode: number }) => r.statusCode)
        : batch.map(() => answer.status);
    for (const status of statuses)
      if (status !== 200) this.refused.set(status, (this.refused.get(status) ?? 0) + 1);
    for (const { runId } of batch) this.inFlight.delete(runId);
    this.answered += batch.length;
    if (!this.closed) this.client.credit(batch.length);
  }
}
