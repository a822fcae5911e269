import { leaseRuns } from '../../../src/server/queue/lease.js';
import {
  createApiCheck,
  createLocation,
  type Store,
  startTestServer,
  TestClock,
  type TestServer,
  type TestServerOptions,
} from '../../support/server.js';
import { apiResult, TestAgent } from '../runs/agent-client.js';

export type Outcome = 'PASSED' | 'FAILED' | 'DEGRADED';

/**
 * A control plane whose loops the test drives (background off, a test clock), a private location and an agent
 * client that takes its runs: each session is triggered through the API, its run leased and its result posted
 * the way an agent does, and the outbox then sent.
 */
export class AlertBench {
  location!: Awaited<ReturnType<typeof createLocation>>;
  agent!: TestAgent;

  private constructor(
    readonly server: TestServer,
    readonly clock: TestClock,
  ) {}

  /** A test control plane on `store` with the bench's clock, and a location `slug` with its agent. */
  static async start(store: Store, slug: string, options: TestServerOptions = {}): Promise<AlertBench> {
    const clock = new TestClock(new Date().toISOString());
    const runs = { background: false, clock: clock.now, ...options.runs };
    const server = await startTestServer(store, { ...options, runs });
    return new AlertBench(server, clock).open(slug);
  }

  private readonly agents = new Map<string, TestAgent>();

  /** Another private location of the account, with an agent client of its own. */
  async addLocation(slug: string): Promise<void> {
    const location = await createLocation(this.server, slug);
    this.agents.set(
      slug,
      await TestAgent.open(this.server.url, location.key, this.server.accountId, 'alert-agent'),
    );
  }

  private async open(slug: string): Promise<this> {
    this.location = await createLocation(this.server, slug);
    this.agent = await TestAgent.open(
      this.server.url,
      this.location.key,
      this.server.accountId,
      'alert-agent',
    );
    return this;
  }

  /**
   * A check at the bench's location, neither scheduled nor retried (every session is one result), subscribed to
   * `channels` only.
   */
  async check(channels: number[], fields: Record<string, unknown> = {}): Promise<string> {
    return createApiCheck(
      this.server,
      {
        name: `Alerting ${Math.random().toString(36).slice(2, 8)}`,
        privateLocations: [this.location.slugName],
        activated: false,
        doubleCheck: false,
        alertChannelSubscriptions: channels.map((alertChannelId) => ({ alertChannelId, activated: true })),
        ...fields,
      },
      { autoAssignAlerts: false },
    );
  }

  /** An alert channel made through the API; returns its id. */
  async channel(
    type: string,
    config: Record<string, unknown>,
    fields: Record<string, unknown> = {},
  ): Promise<number> {
    const { status, body } = await this.server.api('POST', '/v1/alert-channels', { type, config, ...fields });
    if (status !== 201) throw new Error(`creating a channel: ${status} ${JSON.stringify(body)}`);
    return body.id;
  }

  /** One finished session of the check with this outcome, then one delivery pass. */
  async session(checkId: string, outcome: Outcome, tls?: { daysRemaining: number }): Promise<string> {
    const created = await this.server.api('POST', '/v2/check-sessions/trigger', {
      target: { checkId: [checkId] },
    });
    if (created.status !== 201) throw new Error(`trigger: ${created.status} ${JSON.stringify(created.body)}`);
    const sessionId: string = created.body.checkSessions[0].checkSessionId;
    await this.finishRuns(outcome, tls);
    return sessionId;
  }

  /** Leases every queued run of a location (the bench's by default) and posts a result with `outcome` for each. */
  async finishRuns(
    outcome: Outcome,
    tls?: { daysRemaining: number },
    location = this.location.slugName,
  ): Promise<void> {
    const runs = await leaseRuns(this.server.server.runs.db, {
      accountId: this.server.accountId,
      location,
      agentId: 'alert-agent',
      credits: { light: 10, browser: 0 },
      kinds: ['API'],
      now: this.clock.now(),
      leaseTtlMs: 45_000,
    });
    for (const run of runs) {
      const agent = this.agents.get(location) ?? this.agent;
      const posted = await agent.postResult(
        { runId: run.id, attempt: run.attempt } as never,
        resultOf(outcome, tls),
      );
      if (posted.status !== 200) throw new Error(`result: ${posted.status} ${JSON.stringify(posted.body)}`);
    }
    await this.deliver();
  }

  /**
   * Sessions of the check, one per outcome and a second apart, whose results reach the control plane together in
   * one batch; then one delivery pass. Returns the sessions' ids.
   */
  async sessionsTogether(checkId: string, outcomes: readonly Outcome[]): Promise<string[]> {
    const outcomeOf = new Map<string, Outcome>();
    for (const outcome of outcomes) {
      const created = await this.server.api('POST', '/v2/check-sessions/trigger', {
        target: { checkId: [checkId] },
      });
      outcomeOf.set(created.body.checkSessions[0].checkSessionId, outcome);
      this.clock.advance(1_000);
    }
    const runs = await leaseRuns(this.server.server.runs.db, {
      accountId: this.server.accountId,
      location: this.location.slugName,
      agentId: 'alert-agent',
      credits: { light: 10, browser: 0 },
      kinds: ['API'],
      now: this.clock.now(),
      leaseTtlMs: 45_000,
    });
    const posted = await this.agent.postBatch(
      runs.map((run) =>
        this.agent.upload(
          { runId: run.id, attempt: run.attempt } as never,
          resultOf(outcomeOf.get(run.session_id) as Outcome),
        ),
      ),
    );
    if (posted.status !== 200) throw new Error(`batch: ${posted.status} ${JSON.stringify(posted.body)}`);
    await this.deliver();
    return [...outcomeOf.keys()];
  }

  /** One pass of the outbox, as the delivery loop makes it. */
  async deliver(): Promise<void> {
    await this.server.server.runs.deliveryTick();
  }

  /** Moves the clock and lets time act: reminders and time-based escalations, then delivery. */
  async advance(ms: number): Promise<void> {
    this.clock.advance(ms);
    await this.server.server.runs.alertClockTick();
    await this.deliver();
  }

  async notifications(query = ''): Promise<any[]> {
    const { status, body } = await this.server.api('GET', `/v1/alert-notifications${query}`);
    if (status !== 200) throw new Error(`notifications: ${status} ${JSON.stringify(body)}`);
    return body;
  }

  async close(): Promise<void> {
    this.agent?.close();
    for (const agent of this.agents.values()) agent.close();
    await this.server.close();
  }
}

/** An API check's result with this outcome; with `tls`, its response carries a certificate that far from expiry. */
function resultOf(outcome: Outcome, tls?: { daysRemaining: number }) {
  const result = apiResult(
    outcome === 'FAILED' ? { failed: 'connect ECONNREFUSED' } : { degraded: outcome === 'DEGRADED' },
  );
  if (tls) {
    (result.apiCheckResult as Record<string, unknown>).response = {
      status: 200,
      statusText: 'OK',
      body: '',
      bodyEncoding: 'utf8',
      headers: {},
      tls: { daysRemaining: tls.daysRemaining, validTo: null, subject: 'localhost' },
    };
  }
  return result;
}
