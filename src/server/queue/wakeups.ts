import { PROTOCOL_LIMITS } from '../../protocol/index.js';
import type { DueTimes, DueWake } from './events.js';

/** Timers that fire within this much of each other wake a queue once. */
const COALESCE_MS = 10;

/** What the wake-ups call: a queue's dispatch, by what came due. */
export interface WakeTargets {
  /** Runs are due now. */
  enqueued(queue: string): void;
  /** Runs start within `PROTOCOL_LIMITS.startAheadMs` (for agents that take them ahead of their start). */
  ahead(queue: string): void;
  /** Runs queued earlier start now. */
  due(queue: string, wake: DueWake): void;
}

/**
 * Wakes a queue's dispatch when runs queued for later (a scheduled interval claimed before it starts, a retry
 * after its back-off) become due, instead of at the gateway's next poll. Runs queued on other replicas are found
 * by that poll. Besides the wake-up at each start, a queue is woken once per `startAheadMs` window ahead of the
 * runs starting in it: an agent that takes runs ahead leases that window's runs at once, and then lets the
 * wake-ups at their starts pass (AgentConnection.dispatchDue).
 */
export class QueueWakeups {
  private readonly timers = new Map<string, NodeJS.Timeout>();
  /** What each armed wake-up at a start carries, by its timer's key. */
  private readonly dueWakes = new Map<string, DueWake>();

  constructor(
    private readonly targets: WakeTargets,
    private readonly clock: () => Date,
  ) {}

  /** Wakes each queue that got runs due now at once, and arms its wake-ups for the runs due later. */
  schedule(dueLater: ReadonlyMap<string, DueTimes>): void {
    const now = this.clock().getTime();
    const ahead = PROTOCOL_LIMITS.startAheadMs;
    for (const [queue, times] of dueLater) {
      let dueNow = false;
      let aheadNow = false;
      for (const [time, { browser }] of times) {
        if (time <= now) {
          dueNow = true;
          continue;
        }
        this.armDue(queue, time, now, browser);
        // The first multiple of `ahead` at most `ahead` before the start: a run starting on a whole second is
        // taken the second before, not at its start.
        const window = Math.ceil((time - ahead) / ahead) * ahead;
        if (window <= now) aheadNow = true;
        else this.arm(`${queue}\0ahead\0${window}`, window, now, () => this.targets.ahead(queue));
      }
      if (dueNow) this.targets.enqueued(queue);
      else if (aheadNow) this.targets.ahead(queue);
    }
  }

  /** A wake-up at each run's start; one armed again carries the latest start, later queueing and any browser run. */
  private armDue(queue: string, time: number, now: number, browser: boolean): void {
    const at = Math.ceil(time / COALESCE_MS) * COALESCE_MS;
    const key = `${queue}\0${at}`;
    const earlier = this.dueWakes.get(key);
    this.dueWakes.set(key, {
      dueAt: Math.max(earlier?.dueAt ?? time, time),
      queuedAt: now,
      browser: browser || earlier?.browser === true,
    });
    this.arm(key, at, now, () => {
      const wake = this.dueWakes.get(key);
      this.dueWakes.delete(key);
      if (wake) this.targets.due(queue, wake);
    });
  }

  /** One timer per key. */
  private arm(key: string, at: number, now: number, fire: () => void): void {
    if (this.timers.has(key)) return;
    const timer = setTimeout(
      () => {
        this.timers.delete(key);
        fire();
      },
      at - now + 1,
    );
    timer.unref();
    this.timers.set(key, timer);
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
    this.dueWakes.clear();
  }
}
