export type StopReason = 'deadline' | 'cancelled';

/** One signal that fires when the run is cancelled or maxResponseTime has passed, whichever comes first. */
export class Stopper {
  private readonly controller = new AbortController();
  private readonly timer: NodeJS.Timeout | undefined;
  private readonly onCancel = () => this.stop('cancelled');

  constructor(
    maxResponseTime: number | null,
    private readonly cancel: AbortSignal,
  ) {
    if (cancel.aborted) this.stop('cancelled');
    cancel.addEventListener('abort', this.onCancel, { once: true });
    if (maxResponseTime != null) this.timer = setTimeout(() => this.stop('deadline'), maxResponseTime);
  }

  get signal(): AbortSignal {
    return this.controller.signal;
  }

  get reason(): StopReason | null {
    return this.controller.signal.aborted ? (this.controller.signal.reason as StopReason) : null;
  }

  dispose(): void {
    clearTimeout(this.timer);
    this.cancel.removeEventListener('abort', this.onCancel);
  }

  private stop(reason: StopReason): void {
    if (!this.controller.signal.aborted) this.controller.abort(reason);
  }
}
