import type { CheckSession } from '../../checks/index.js';
import { secretMasker } from '../../checks/secrets.js';
import { afterIoPoll } from '../run/after-io-poll.js';
import { type AttemptEnd, runAttempt } from '../run/attempt.js';
import { runCheckSession, sessionVariables } from '../run/session.js';
import { pooledExecutors } from './executors.js';
import type { PooledJob } from './messages.js';

export type JobOutcome = { session: CheckSession } | { end: AttemptEnd } | { error: string };

/**
 * Runs pooled jobs `slots` at once and queues the rest: a pool thread's work, and the main thread's share when it
 * takes one.
 */
export class SlotRunner {
  private readonly waiting: PooledJob[] = [];
  private readonly running = new Map<number, AbortController>();
  private readonly cancelled = new Set<number>();

  constructor(
    private readonly slots: number,
    private readonly onDone: (id: number, outcome: JobOutcome) => void,
  ) {}

  add(jobs: readonly PooledJob[]): void {
    this.waiting.push(...jobs);
    this.startWaiting();
  }

  /** Running jobs stop; waiting ones end CANCELLED without running. */
  cancel(ids: readonly number[]): void {
    for (const id of ids) {
      const controller = this.running.get(id);
      if (controller) controller.abort();
      else this.cancelled.add(id);
    }
  }

  private startWaiting(): void {
    while (this.running.size < this.slots && this.waiting.length > 0) {
      void this.run(this.waiting.shift() as PooledJob);
    }
  }

  private async run(job: PooledJob): Promise<void> {
    const controller = new AbortController();
    if (this.cancelled.delete(job.id)) controller.abort();
    this.running.set(job.id, controller);
    let outcome: JobOutcome;
    try {
      outcome = await runJob(job, controller.signal);
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

async function runJob(job: PooledJob, signal: AbortSignal): Promise<JobOutcome> {
  if (job.type === 'session') {
    const session = await runCheckSession(job.check, { ...job.options, signal, executors: pooledExecutors });
    return { session };
  }
  const { check, options } = job;
  const end = await runAttempt(check, {
    runId: options.runId,
    executors: pooledExecutors,
    variables: sessionVariables(check, { inherited: options.inherited }),
    mask: secretMasker(options.secrets),
    runLocation: options.runLocation,
    clientCertificates: options.clientCertificates,
    signal,
    limitMs: options.limitMs,
  });
  return { end };
}
