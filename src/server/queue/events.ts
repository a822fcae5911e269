import { EventEmitter } from 'node:events';
import type { CheckType } from '../../checks/index.js';
import { slotClassOf } from '../../protocol/index.js';

/**
 * The times (ms) from which runs a queue got may be handed out, each saying whether a run of the browser class
 * starts then (those are never sent ahead of their start, so their wake-up is always needed).
 */
export type DueTimes = Map<number, { browser: boolean }>;

/** A wake-up at the start of runs queued earlier, at `queuedAt` (ms): see AgentConnection.dispatchDue. */
export interface DueWake {
  dueAt: number;
  queuedAt: number;
  browser: boolean;
}

/** A session that ended, as the server's line for it tells it (RunServices logs one per session). */
export interface EndedSession {
  checkId: string;
  check: string;
  status: string;
  runSource: string;
  locations: string[];
}

/** What a transaction changed that others must hear about once it committed. */
export class RunEffects {
  /** `accountId\0location` of queues that got runs to hand out at once. */
  readonly enqueued = new Set<string>();
  /**
   * The times (ms) from which the runs a queue got may be handed out, by queue: RunServices wakes the queue at each
   * one still ahead (an interval claimed before it starts, a retry after its back-off).
   */
  readonly dueLater = new Map<string, DueTimes>();
  /** Sessions that ended, by id. */
  readonly finishedSessions = new Map<string, EndedSession>();
  readonly finishedTestSessions = new Set<string>();
  /** Leased runs whose agents must be told to stop. */
  readonly cancelRuns = new Set<string>();
  /** Sessions whose alerting failed (a bug or a broken stored setting): recorded without it, and logged. */
  readonly alertingFailures: { sessionId: string; error: unknown }[] = [];
  /** Notifications written to the outbox: delivery is woken for them, and only for them. */
  notificationsWritten = 0;

  /**
   * A queue got runs, to be handed out from `notBefore` when given (else at once). Runs for later wake their queue
   * when they come due, not now: a lease now would find none of them (at 3,000 checks every 10 s, claims made a
   * second ahead cost one empty lease per agent each).
   */
  queued(accountId: string, location: string, later?: { notBefore: Date; checkType: CheckType }): void {
    const queue = queueKey(accountId, location);
    if (later) this.queuedFor(queue, later.notBefore.getTime(), slotClassOf(later.checkType) === 'browser');
    else this.enqueued.add(queue);
  }

  private queuedFor(queue: string, at: number, browser: boolean): void {
    const times: DueTimes = this.dueLater.get(queue) ?? new Map();
    times.set(at, { browser: browser || times.get(at)?.browser === true });
    this.dueLater.set(queue, times);
  }

  /** A session ended with `status`. */
  sessionEnded(
    session: { id: string; check_id: string; name: string; run_source: string; run_locations: string[] },
    status: string,
  ): void {
    this.finishedSessions.set(session.id, {
      checkId: session.check_id,
      check: session.name,
      status,
      runSource: session.run_source,
      locations: session.run_locations,
    });
  }

  /** Takes in what another transaction changed. */
  absorb(other: RunEffects): void {
    for (const queue of other.enqueued) this.enqueued.add(queue);
    for (const [queue, times] of other.dueLater) {
      for (const [at, { browser }] of times) this.queuedFor(queue, at, browser);
    }
    for (const [id, ended] of other.finishedSessions) this.finishedSessions.set(id, ended);
    for (const id of other.finishedTestSessions) this.finishedTestSessions.add(id);
    for (const id of other.cancelRuns) this.cancelRuns.add(id);
    this.alertingFailures.push(...other.alertingFailures);
    this.notificationsWritten += other.notificationsWritten;
  }
}

export function queueKey(accountId: string, location: string): string {
  return `${accountId}\0${location}`;
}

interface EventMap {
  /** Runs a queue's agents may take now. */
  enqueued: [queue: string];
  /** Runs start within `PROTOCOL_LIMITS.startAheadMs`: agents that take runs ahead of their start may take them. */
  ahead: [queue: string];
  /** Runs queued earlier start now. */
  due: [queue: string, wake: DueWake];
  'session-finished': [sessionId: string];
  'test-session-finished': [testSessionId: string];
  cancel: [runId: string];
  'key-revoked': [keyId: string];
}

/**
 * In-process notifications between the routes, the queue and the gateway of one server. Other replicas learn the
 * same facts by polling the store, so nothing depends on these events arriving.
 */
export class RunEvents extends EventEmitter<EventMap> {
  constructor() {
    super();
    this.setMaxListeners(0);
  }

  publish(effects: RunEffects): void {
    for (const queue of effects.enqueued) this.emit('enqueued', queue);
    for (const id of effects.cancelRuns) this.emit('cancel', id);
    for (const id of effects.finishedSessions.keys()) this.emit('session-finished', id);
    for (const id of effects.finishedTestSessions) this.emit('test-session-finished', id);
  }
}
