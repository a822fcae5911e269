/** Exponential back-off with full jitter: each wait is random between 0 and min(max, base·2ⁿ). */
export class Backoff {
  private failures = 0;

  constructor(
    private readonly baseMs: number,
    private readonly maxMs: number,
    private readonly random: () => number = Math.random,
  ) {}

  /** The wait before the next try; each call counts one more failure. */
  next(): number {
    const ceiling = Math.min(this.maxMs, this.baseMs * 2 ** Math.min(this.failures, 30));
    this.failures++;
    return Math.round(this.random() * ceiling);
  }

  reset(): void {
    this.failures = 0;
  }

  get attempts(): number {
    return this.failures;
  }
}
