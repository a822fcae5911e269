/** Timers that fire within this much of each other wake a queue once. */
const COALESCE_MS = 10;

/**
 * Wakes a queue's dispatch when runs queued for later (a scheduled interval claimed before it starts, a retry
 * after its back-off) become due, instead of at the gateway's next poll. Runs queued on other replicas are found
 * by that poll.
 */
export class QueueWakeups {
  private readonly timers = new Map<string, NodeJS.Timeout>();

  constructor(
    private readonly wake: (queue: string) => void,
    private readonly clock: () => Date,
  ) {}

  /** Wakes each queue that got runs due now at once, and arms a wake-up per queue and future time. */
  schedule(dueLater: ReadonlyMap<string, ReadonlySet<number>>): void {
    const now = this.clock().getTime();
    for (const [queue, times] of dueLater) {
      if ([...times].some((time) => time <= now)) this.wake(queue);
      for (const time of times) {
        const at = Math.ceil(time / COALESCE_MS) * COALESCE_MS;
        const key = `${queue}\0${at}`;
        if (time <= now || this.timers.has(key)) continue;
        const timer = setTimeout(
          () => {
            this.timers.delete(key);
            this.wake(queue);
          },
          at - now + 1,
        );
        timer.unref();
        this.timers.set(key, timer);
      }
    }
  }

  stop(): void {
    for (const timer of this.timers.values()) clearTimeout(timer);
    this.timers.clear();
  }
}
