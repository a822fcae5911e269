/**
 * Commits items in groups: what is added while a commit is under way waits for the next one, which takes it all
 * (up to `maxItems`). A lone item waits up to `lingerMs` for company first, while `companyMayCome` says more may
 * follow: items that finish close together then share one commit (one durable write) instead of each going alone;
 * under load many share one commit anyway. An item that no other can follow is committed at once, with those
 * waiting.
 */
export class GroupCommit<T, R> {
  private pending: { item: T; resolve: (result: R) => void; reject: (error: unknown) => void }[] = [];
  private running = false;
  private lingering: NodeJS.Timeout | null = null;

  constructor(
    private readonly commit: (items: readonly T[]) => Promise<readonly R[]>,
    private readonly maxItems: number,
    private readonly lingerMs = 0,
    private readonly companyMayCome: () => boolean = () => true,
  ) {}

  /** Resolves with the item's result once the commit that holds it is done. */
  add(item: T): Promise<R> {
    return new Promise((resolve, reject) => {
      this.pending.push({ item, resolve, reject });
      if (this.running) return;
      if (this.lingerMs <= 0 || this.pending.length >= this.maxItems || !this.companyMayCome())
        void this.run();
      else this.lingering ??= setTimeout(() => void this.run(), this.lingerMs);
    });
  }

  private async run(): Promise<void> {
    if (this.lingering) clearTimeout(this.lingering);
    this.lingering = null;
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
