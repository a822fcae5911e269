import type { FastifyBaseLogger } from 'fastify';

/**
 * Calls `fn` every `intervalMs` (null: only when woken), never twice at once; an error is logged and the loop goes
 * on. `waitMs`, when given, says after each run how long to wait for the next one instead (never less than
 * `intervalMs`): a loop that knows nothing can happen for a while sleeps through it, and `hurry` cuts the sleep short.
 */
export class Loop {
  private timer: NodeJS.Timeout | null = null;
  /** When the pending timer fires (Date.now() time). */
  private timerAt = 0;
  private running: Promise<void> | null = null;
  private stopped = true;
  /** A wake waits for the run in progress. */
  private woken = false;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number | null,
    private readonly fn: () => Promise<void>,
    private readonly log: FastifyBaseLogger,
    private readonly waitMs?: () => number,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    if (this.intervalMs !== null) this.schedule(0);
  }

  /** Runs once now (or waits for the run in progress); for tests and for shutdown. */
  async runOnce(): Promise<void> {
    while (this.running) await this.running;
    this.running = this.fn()
      .catch((error: unknown) => this.log.error({ err: error }, `${this.name} failed`))
      .finally(() => {
        this.running = null;
      });
    await this.running;
  }

  /**
   * Runs once soon, unless stopped: something happened that the loop's next run would act on. Wakes while a run is
   * in progress come to one run after it.
   */
  wake(): void {
    if (this.stopped || this.woken) return;
    this.woken = true;
    void (async () => {
      while (this.running) await this.running;
      this.woken = false;
      await this.runOnce();
    })();
  }

  /** Something changed that the loop acts on: a sleep longer than `intervalMs` ends `intervalMs` from now. */
  hurry(): void {
    if (this.stopped || this.intervalMs === null || this.timer === null) return;
    if (this.timerAt <= Date.now() + this.intervalMs) return;
    clearTimeout(this.timer);
    this.schedule(this.intervalMs);
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) await this.running;
  }

  private schedule(delayMs: number): void {
    this.timerAt = Date.now() + delayMs;
    this.timer = setTimeout(async () => {
      this.timer = null;
      if (this.stopped) return;
      await this.runOnce();
      if (!this.stopped && this.intervalMs !== null) {
        // A sleep ends a millisecond late: a timer may fire a little before Date.now() reaches its end.
        const sleepMs = this.waitMs?.() ?? 0;
        this.schedule(Math.max(this.intervalMs, sleepMs > 0 ? sleepMs + 1 : 0));
      }
    }, delayMs);
    this.timer.unref();
  }
}
