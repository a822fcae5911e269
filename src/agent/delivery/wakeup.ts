/** Lets loops sleep until a deadline or until something calls `wake()`. */
export class Wakeup {
  private sleepers = new Set<() => void>();

  /** Resolves after `ms` (Infinity: only on wake). */
  sleep(ms: number): Promise<void> {
    return new Promise((resolve) => {
      const done = () => {
        clearTimeout(timer);
        this.sleepers.delete(done);
        resolve();
      };
      const timer = Number.isFinite(ms) ? setTimeout(done, Math.max(0, ms)) : undefined;
      this.sleepers.add(done);
    });
  }

  wake(): void {
    for (const sleeper of [...this.sleepers]) sleeper();
  }
}
