/**
 * Commits items in groups: what is added while a commit is under way waits for the next one, which takes it all
 * (up to `maxItems`). A lone item is committed at once; under load many share one commit (one write and fsync).
 */
export class GroupCommit<T, R> {
  private pending: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  private running = false;

  constructor(
    private readonly commit: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly maxItems: number,
  ) {}

  /** Resolves with the item's result once the commit that holds it is done. */
  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (!this.running) void this.run();
    });
  }

  private async run(): Promise<void> {
    this.running = true;
    while (this.pending.length > 0) {
      const group = this.pending.splice(0, this.maxItems);
      try {
        const results = await this.commit(group.map((g) => g.item));
        for (const [index, g] of group.entries()) g.resolve(results[index] as R);
      } catch (error) {
        for (const g of group) g.reject(error);
      }
    }
    this.running = false;
  }
}
