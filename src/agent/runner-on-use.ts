import type { SlotClass } from '../protocol/index.js';
import type { Runner, RunnerOptions } from './runner.js';

/**
 * The Runner, imported at the first run: it brings the check model (the schemas of every check kind) and the
 * executors' run code, which an agent waiting for work does not need (docs/performance.md, "Agent start-up and
 * memory"). Runs and cancels are handed to it in the order they arrived, those that came while it loaded included.
 */
export class RunnerOnUse {
  private runner: Runner | null = null;
  private loading: Promise<Runner> | null = null;
  /** The calls waiting for the runner, in order. */
  private turn: Promise<void> = Promise.resolve();
  private waiting = 0;
  /** Runs received while the runner loads: held by this agent all the same (heartbeat, hello). */
  private readonly arriving = new Set<string>();

  constructor(
    private readonly options: RunnerOptions,
    private readonly onLoaded?: () => void,
  ) {}

  /** Calls `use` with the runner, after every call before it; loads the runner first when a run needs it. */
  withRunner(runId: string | null, use: (runner: Runner) => void): void {
    if (this.runner && this.waiting === 0) {
      use(this.runner);
      return;
    }
    if (runId !== null) this.arriving.add(runId);
    this.waiting++;
    this.turn = this.turn
      .then(async () => {
        try {
          this.runner ??= await this.load();
          use(this.runner);
        } finally {
          this.waiting--;
          if (runId !== null) this.arriving.delete(runId);
        }
      })
      .catch((error) => {
        // Thrown outside the chain, as a synchronous handler's error would be: the agent's uncaught-exception exit.
        queueMicrotask(() => {
          throw error;
        });
      });
  }

  /** Whether a runner is loaded or loading: before the first run there is nothing to cancel. */
  get started(): boolean {
    return this.runner !== null || this.waiting > 0;
  }

  private load(): Promise<Runner> {
    this.loading ??= import('./runner.js').then(({ Runner }) => {
      this.onLoaded?.();
      return new Runner(this.options);
    });
    return this.loading;
  }

  /** Takes back the runs that have not started (shutdown); runs still arriving are handed back as they come. */
  releaseUnstarted(): string[] {
    return this.runner?.releaseUnstarted() ?? [];
  }

  cancelRunning(): void {
    this.runner?.cancelRunning();
  }

  /** Worker threads the runner's pool runs (none before the first run). */
  get threads(): number {
    return this.runner?.threads ?? 0;
  }

  /** Stops what the runner started (its pool's threads); call once no run is held. */
  async close(): Promise<void> {
    await this.runner?.close();
  }

  /** Resolves once every run that arrived is handled and none is held. */
  async idle(): Promise<void> {
    await this.turn;
    await this.runner?.idle();
  }

  heldRunIds(): string[] {
    return [...this.arriving, ...(this.runner?.heldRunIds() ?? [])];
  }

  count(phase: 'queued' | 'running', slotClass?: SlotClass): number {
    return this.runner?.count(phase, slotClass) ?? 0;
  }
}
