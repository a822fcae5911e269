import { randomUUID } from 'node:crypto';
import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { type CheckType, isCheckType } from '../../checks/index.js';
import {
  type AgentMessage,
  agentMessage,
  CLOSE_CODES,
  type ControlMessage,
  type HelloMessage,
  PROTOCOL_LIMITS,
  RUNS_AHEAD_VERSION,
  SLOT_CLASSES,
  type SlotCounts,
  SUPPORTED_PROTOCOL_VERSIONS,
  slotClassOf,
} from '../../protocol/index.js';
import type { AuthContext } from '../auth/context.js';
import { type DueWake, RunEffects } from '../queue/events.js';
import { adoptRuns, leaseReach, leaseRuns, releaseRuns, renewLeases } from '../queue/lease.js';
import { runMessageOf } from '../queue/run.js';
import { againOnConflict } from '../queue/transact.js';
import type { GatewayDeps } from './deps.js';
import { type AgentIdentity, agentConnected, agentDisconnected, agentSeen, keyIsActive } from './presence.js';

type ErrorCode = Extract<ControlMessage, { type: 'error' }>['code'];

/** The account and location a connection serves, from its private-location key. */
export interface ConnectionAuth {
  accountId: string;
  privateLocationId: string;
  location: string;
  keyId: string;
}

export function connectionAuthOf(auth: AuthContext): ConnectionAuth | null {
  if (auth.kind !== 'location' || !auth.privateLocationId || !auth.locationSlug) return null;
  return {
    accountId: auth.accountId,
    privateLocationId: auth.privateLocationId,
    location: auth.locationSlug,
    keyId: auth.keyId,
  };
}

/** How long returned credit is gathered before a lease, and how much credit leases at once. */
const CREDIT_GATHER_MS = 10;
const CREDIT_GATHER_SLOTS = 10;

/**
 * One agent's WebSocket (docs/protocol.md): hello/welcome, credit, dispatch of leased runs, heartbeats renewing
 * leases, release, cancel. Messages are handled one at a time, in order.
 */
export class AgentConnection {
  readonly connectionId = randomUUID();
  agentId: string | null = null;
  private state: 'handshake' | 'ready' | 'closed' = 'handshake';
  private readonly credits: SlotCounts = { light: 0, browser: 0 };
  private kinds: CheckType[] = [];
  /** The check-suite engines the agent has; null when its hello did not say (an agent older than the field). */
  private engines: string[] | null = null;
  /** Runs sent on this connection (or adopted by it) that may still run: where cancels go. */
  private readonly held = new Set<string>();
  private readonly cancelsSent = new Set<string>();
  private inbox: Promise<void> = Promise.resolve();
  private dispatching = false;
  private dispatchAgain = false;
  /** Counts what may have changed the queue: runs queued or coming due here, a release, the poll. */
  private queueChanges = 0;
  /**
   * `queueChanges` when a lease last found no more runs this agent may take, in every slot class it had credit
   * for. While nothing changed since, credit alone does not send the agent to the store again.
   */
  private emptyAt: number | null = null;
  /** The agent speaks protocol version 3 or later: lightweight runs go to it up to `startAheadMs` early. */
  private runsAhead = false;
  /**
   * After a lease that took every lightweight run this agent could until `through` (ms), queued before `since`:
   * the wake-ups at those runs' starts have nothing left for it.
   */
  private covered: { through: number; since: number } | null = null;
  private gathering: NodeJS.Timeout | null = null;
  /** The poll: a lease at least every `dispatchPollMs` (runs another replica queued); any lease puts it off. */
  private readonly pollTimer: NodeJS.Timeout;
  private readonly timers: NodeJS.Timeout[] = [];
  private alive = true;

  constructor(
    private readonly ws: WebSocket,
    /** The socket under `ws`: corked while a lease's runs are sent, so they leave in one write. */
    private readonly socket: Pick<Duplex, 'cork' | 'uncork'>,
    readonly auth: ConnectionAuth,
    private readonly deps: GatewayDeps,
    private readonly hooks: {
      onReady(connection: AgentConnection): void;
      onClosed(connection: AgentConnection): void;
    },
  ) {
    ws.on('message', (data, isBinary) => {
      const text = isBinary ? null : data.toString();
      this.inbox = this.inbox.then(() => this.handleText(text)).catch((error) => this.fail(error));
    });
    ws.on('pong', () => {
      this.alive = true;
    });
    ws.on('close', () => void this.closed());
    ws.on('error', () => {});
    const helloTimer = setTimeout(() => {
      if (this.state === 'handshake') this.refuse('BAD_MESSAGE', 'no hello received in time', 1008);
    }, deps.settings.helloTimeoutMs);
    const pingTimer = setInterval(() => {
      if (!this.alive) return this.ws.terminate();
      this.alive = false;
      this.ws.ping();
    }, deps.settings.pingIntervalMs);
    this.pollTimer = setInterval(() => void this.dispatch(), deps.settings.dispatchPollMs);
    for (const timer of [helloTimer, pingTimer, this.pollTimer]) timer.unref();
    this.timers.push(helloTimer, pingTimer, this.pollTimer);
  }

  get ready(): boolean {
    return this.state === 'ready';
  }

  holds(runId: string): boolean {
    return this.held.has(runId);
  }

  /** Tells the agent to stop a run it holds (once per run). */
  sendCancel(runId: string): void {
    if (!this.ready || this.cancelsSent.has(runId)) return;
    this.cancelsSent.add(runId);
    this.send({ type: 'cancel', runId });
  }

  /** Sends a fatal error (revoked key, unsupported protocol, broken handshake) and closes. */
  refuse(code: ErrorCode, message: string, closeCode: number): void {
    if (this.state === 'closed') return;
    this.send({ type: 'error', code, message, fatal: true });
    this.ws.close(closeCode, message.slice(0, 120));
  }

  private refuseVersion(version: unknown): void {
    const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
    this.refuse(
      'UNSUPPORTED_PROTOCOL',
      `protocol version ${String(version)} is not supported; this control plane speaks ${supported}`,
      CLOSE_CODES.unsupportedProtocol,
    );
  }

  /** Closes without an error message (shutdown, replaced by a newer connection). */
  close(closeCode: number, reason: string): void {
    if (this.state !== 'closed') this.ws.close(closeCode, reason);
  }

  terminate(): void {
    this.ws.terminate();
  }

  /** The queue may have changed (runs queued or due, the poll): leases and sends runs the agent has credit for. */
  async dispatch(): Promise<void> {
    this.queueChanges += 1;
    await this.dispatchCredit();
  }

  /** Runs start within `startAheadMs`: only an agent that takes runs ahead leases now. */
  async dispatchAhead(): Promise<void> {
    if (this.runsAhead) await this.dispatch();
  }

  /**
   * Runs queued earlier start now: an agent that takes runs ahead was sent them already when a lease since their
   * queueing reached past their start (browser-class runs are never sent ahead).
   */
  async dispatchDue(wake: DueWake): Promise<void> {
    const covered = this.covered;
    if (
      this.runsAhead &&
      !wake.browser &&
      covered &&
      covered.through >= wake.dueAt &&
      covered.since >= wake.queuedAt
    ) {
      return;
    }
    await this.dispatch();
  }

  /**
   * Credit trickles back a slot at a time while an agent works through many runs: it is gathered for up to
   * CREDIT_GATHER_MS, or until CREDIT_GATHER_SLOTS, so that one lease takes several runs instead of one each.
   */
  private creditArrived(): void {
    if (this.credits.light + this.credits.browser >= CREDIT_GATHER_SLOTS) {
      void this.dispatchCredit();
      return;
    }
    if (this.gathering) return;
    this.gathering = setTimeout(() => {
      this.gathering = null;
      void this.dispatchCredit();
    }, CREDIT_GATHER_MS);
    this.gathering.unref();
  }

  /** Leases and sends runs while the agent has credit for them, unless the queue was found empty since. */
  private async dispatchCredit(): Promise<void> {
    if (this.emptyAt === this.queueChanges) return;
    if (this.dispatching) {
      this.dispatchAgain = true;
      return;
    }
    this.dispatching = true;
    try {
      // Asked again while leasing: by credit, which leases again only if the queue was not found empty since; or by
      // a change of the queue, which always does.
      do {
        this.dispatchAgain = false;
        await this.dispatchOnce();
      } while (this.dispatchAgain && this.ready && this.emptyAt !== this.queueChanges);
    } catch (error) {
      this.deps.log.error({ err: error }, 'dispatching runs to an agent failed');
    } finally {
      this.dispatching = false;
    }
  }

  private async dispatchOnce(): Promise<void> {
    if (!this.ready || (this.credits.light <= 0 && this.credits.browser <= 0)) return;
    const { db, clock, settings } = this.deps;
    const asked = { ...this.credits };
    const changes = this.queueChanges;
    const now = clock();
    const request = {
      ...this.leaser(),
      credits: asked,
      kinds: this.kinds,
      engines: this.engines,
      now,
      leaseTtlMs: settings.leaseTtlMs,
      aheadMs: this.runsAhead ? PROTOCOL_LIMITS.startAheadMs : 0,
    };
    // This lease sees all the poll would, so the poll waits a whole interval from now: an agent that takes runs
    // ahead leases once a second anyway, and then never needs it.
    this.pollTimer.refresh();
    const runs = await leaseRuns(db, request);
    const unsent: string[] = [];
    const sentAt = this.runsAhead ? clock() : undefined;
    this.socket.cork();
    try {
      for (const run of runs) {
        this.credits[slotClassOf(run.check_type)] -= 1;
        if (this.ready && this.send(runMessageOf(run, this.deps.publicUrl, sentAt))) this.held.add(run.id);
        else unsent.push(run.id);
      }
    } finally {
      this.socket.uncork();
    }
    if (request.aheadMs > 0 && asked.light > 0) {
      this.covered = { through: leaseReach(request, runs), since: now.getTime() };
    }
    if (unsent.length > 0) await releaseRuns(db, this.leaser(), unsent, clock());
    const short = SLOT_CLASSES.every(
      (slotClass) =>
        asked[slotClass] <= 0 ||
        runs.filter((r) => slotClassOf(r.check_type) === slotClass).length < asked[slotClass],
    );
    if (short) this.emptyAt = changes;
  }

  private leaser() {
    return { accountId: this.auth.accountId, location: this.auth.location, agentId: this.agentId ?? '' };
  }

  private identity(): AgentIdentity {
    return {
      accountId: this.auth.accountId,
      privateLocationId: this.auth.privateLocationId,
      agentId: this.agentId ?? '',
      connectionId: this.connectionId,
    };
  }

  private send(message: ControlMessage): boolean {
    if (this.ws.readyState !== this.ws.OPEN) return false;
    this.ws.send(JSON.stringify(message));
    return true;
  }

  private async handleText(text: string | null): Promise<void> {
    if (this.state === 'closed') return;
    let json: unknown;
    try {
      json = text === null ? null : JSON.parse(text);
    } catch {
      json = null;
    }
    // A hello of a version this server does not speak may hold fields it does not know: the version decides first.
    if (
      this.state === 'handshake' &&
      isHello(json) &&
      !SUPPORTED_PROTOCOL_VERSIONS.includes(json.protocolVersion)
    ) {
      return this.refuseVersion(json.protocolVersion);
    }
    const parsed = agentMessage.safeParse(json);
    if (!parsed.success) {
      const problem = parsed.error.issues[0];
      const detail = problem ? `${problem.path.join('.') || 'message'}: ${problem.message}` : 'not JSON';
      if (this.state === 'handshake') return this.refuse('BAD_MESSAGE', `expected hello (${detail})`, 1008);
      this.send({ type: 'error', code: 'BAD_MESSAGE', message: `message refused: ${detail}`, fatal: false });
      return;
    }
    await this.handle(parsed.data);
  }

  private async handle(message: AgentMessage): Promise<void> {
    if (message.type === 'hello') return this.hello(message);
    if (this.state !== 'ready') return this.refuse('BAD_MESSAGE', 'the first message must be hello', 1008);
    const { db, clock } = this.deps;
    switch (message.type) {
      case 'credit':
        this.credits.light += message.credits.light;
        this.credits.browser += message.credits.browser;
        this.creditArrived();
        return;
      case 'heartbeat': {
        if (!(await keyIsActive(db, this.auth.keyId))) return this.revoked();
        for (const id of message.running) this.held.add(id);
        await this.renew(message.running);
        await agentSeen(db, this.identity(), clock());
        return;
      }
      case 'release': {
        // A release says the agent is leaving: it gets nothing more on the credit it granted earlier.
        this.credits.light = 0;
        this.credits.browser = 0;
        const released = await releaseRuns(db, this.leaser(), message.runIds, clock());
        for (const id of message.runIds) this.held.delete(id);
        if (released.length > 0) {
          const effects = new RunEffects();
          effects.queued(this.auth.accountId, this.auth.location);
          this.deps.events.publish(effects);
        }
        return;
      }
    }
  }

  /**
   * Renews the leases a heartbeat names. Should the store fail to (a conflict again and again, a moment without
   * it), the agent keeps its connection: the next heartbeat renews them, long before they run out.
   */
  private async renew(runIds: string[]): Promise<void> {
    const { db, clock, settings, log } = this.deps;
    try {
      await againOnConflict(() => renewLeases(db, this.leaser(), runIds, clock(), settings.leaseTtlMs));
    } catch (error) {
      log.warn(
        { err: error, agentId: this.agentId },
        'a heartbeat could not renew its leases; the next one will',
      );
    }
  }

  private async hello(hello: HelloMessage): Promise<void> {
    if (this.state !== 'handshake') {
      this.send({ type: 'error', code: 'BAD_MESSAGE', message: 'hello was already received', fatal: false });
      return;
    }
    const { db, clock, settings } = this.deps;
    if (!(await keyIsActive(db, this.auth.keyId))) return this.revoked();
    this.agentId = hello.agentId;
    this.kinds = Object.entries(hello.capabilities)
      .filter(([kind, capability]) => isCheckType(kind) && capability.available)
      .map(([kind]) => kind as CheckType);
    this.engines = hello.engines ?? null;
    this.runsAhead = hello.protocolVersion >= RUNS_AHEAD_VERSION;
    const now = clock();
    await agentConnected(db, { ...this.identity(), keyId: this.auth.keyId, hello, now });
    for (const id of await adoptRuns(db, this.leaser(), hello.running, now, settings.leaseTtlMs))
      this.held.add(id);
    this.state = 'ready';
    this.send({
      type: 'welcome',
      protocolVersion: hello.protocolVersion,
      location: this.auth.location,
      heartbeatIntervalMs: settings.heartbeatIntervalMs,
      leaseTtlMs: settings.leaseTtlMs,
    });
    this.hooks.onReady(this);
    this.deps.log.info(
      {
        agentId: this.agentId,
        location: this.auth.location,
        agentVersion: hello.agentVersion,
        hostname: hello.hostname,
        adoptedRuns: this.held.size,
      },
      'agent connected',
    );
  }

  revoked(): void {
    this.refuse('REVOKED', 'the private-location key of this agent was revoked', CLOSE_CODES.revoked);
  }

  private fail(error: unknown): void {
    this.deps.log.error({ err: error }, 'agent connection failed');
    this.refuse('INTERNAL', 'the control plane failed to handle a message', 1011);
  }

  private async closed(): Promise<void> {
    if (this.state === 'closed') return;
    const wasReady = this.state === 'ready';
    this.state = 'closed';
    for (const timer of this.timers) clearTimeout(timer);
    if (this.gathering) clearTimeout(this.gathering);
    this.hooks.onClosed(this);
    if (wasReady) {
      this.deps.log.info(
        { agentId: this.agentId, location: this.auth.location, heldRuns: this.held.size },
        'agent left',
      );
      await agentDisconnected(this.deps.db, this.identity(), this.deps.clock()).catch((error) =>
        this.deps.log.warn({ err: error }, 'could not mark an agent disconnected'),
      );
    }
  }
}

function isHello(json: unknown): json is { type: 'hello'; protocolVersion: number } {
  const message = json as { type?: unknown; protocolVersion?: unknown } | null;
  return message?.type === 'hello' && typeof message.protocolVersion === 'number';
}
