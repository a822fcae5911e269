/**
 * An agent that is never the limit: it speaks the protocol (the test client of test/server/runs, built on the
 * schemas of src/protocol), holds `credits` runs at once, and uploads a PASS result for each run the moment it
 * arrives, then grants the slot again.
 */
import { PROTOCOL_LIMITS, type RunMessage } from '../../src/protocol/index.js';
import { apiResult, TestAgent } from '../../test/server/runs/agent-client.js';

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
    const messages = this.client.received.splice(0);
    for (const message of messages) if (message.type === 'run') void this.answer(message, Date.now());
  }

  private async answer(run: RunMessage, at: number): Promise<void> {
    this.received.set(run.checkSessionId, at);
    this.inFlight.add(run.runId);
    const { status } = await this.client.postResult(run, apiResult()).catch(() => ({ status: 0 }));
    if (status !== 200) this.refused.set(status, (this.refused.get(status) ?? 0) + 1);
    this.inFlight.delete(run.runId);
    this.answered += 1;
    if (!this.closed) this.client.credit(1);
  }
}
