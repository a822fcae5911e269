import type { FastifyBaseLogger } from 'fastify';

/** Calls `fn` every `intervalMs`, never twice at once; an error is logged and the loop goes on. */
export class Loop {
  private timer: NodeJS.Timeout | null = null;
  private running: Promise<void> | null = null;
  private stopped = true;

  constructor(
    private readonly name: string,
    private readonly intervalMs: number,
    private readonly fn: () => Promise<void>,
    private readonly log: FastifyBaseLogger,
  ) {}

  start(): void {
    if (!this.stopped) return;
    this.stopped = false;
    this.schedule(0);
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

  /** Runs once soon, unless stopped: something happened that the loop's next run would act on. */
  wake(): void {
    if (!this.stopped) void this.runOnce();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
    if (this.running) await this.running;
  }

  private schedule(delayMs: number): void {
    this.timer = setTimeout(async () => {
      if (this.stopped) return;
      await this.runOnce();
      if (!this.stopped) this.schedule(this.intervalMs);
    }, delayMs);
    this.timer.unref();
  }
}
