import type { CheckSession } from '../../checks/index.js';
import { afterIoPoll } from '../run/after-io-poll.js';
import { runCheckSession } from '../run/session.js';
import { pooledExecutors } from './executors.js';
import type { SessionJob } from './messages.js';

export type SessionOutcome = { session: CheckSession } | { error: string };

/**
 * Runs pooled sessions `slots` at once and queues the rest: a pool thread's work, and the main thread's share
 * when it takes one.
 */
export class SlotRunner {
  private readonly waiting: SessionJob[] = [];
  private readonly running = new Map<number, AbortController>();
  private readonly cancelled = new Set<number>();

  constructor(
    private readonly slots: number,
    private readonly onDone: (id: number, outcome: SessionOutcome) => void,
  ) {}

  add(jobs: readonly SessionJob[]): void {
    this.waiting.push(...jobs);
    this.startWaiting();
  }

  /** Running sessions stop; waiting ones end CANCELLED without running. */
  cancel(ids: readonly number[]): void {
    for (const id of ids) {
      const controller = this.running.get(id);
      if (controller) controller.abort();
      else this.cancelled.add(id);
    }
  }

  private startWaiting(): void {
    while (this.running.size < this.slots && this.waiting.length > 0) {
      void this.run(this.waiting.shift() as SessionJob);
    }
  }

  private async run(job: SessionJob): Promise<void> {
    const controller = new AbortController();
    if (this.cancelled.delete(job.id)) controller.abort();
    this.running.set(job.id, controller);
    let outcome: SessionOutcome;
    try {
      const session = await runCheckSession(job.check, {
        ...job.options,
        signal: controller.signal,
        executors: pooledExecutors,
      });
      outcome = { session };
    } catch (error) {
      outcome = { error: error instanceof Error ? error.message : String(error) };
    } finally {
      this.running.delete(job.id);
    }
    this.onDone(job.id, outcome);
    await afterIoPoll();
    this.startWaiting();
  }
}
