import PQueue from 'p-queue';
import { SLOT_CLASSES, type SlotClass, type SlotCounts } from '../../protocol/index.js';

/** One p-queue per slot class, each limited to that class's slots. */
export class SlotQueues {
  private readonly queues: Record<SlotClass, PQueue>;

  constructor(capacity: Readonly<SlotCounts>) {
    this.queues = {
      light: new PQueue({ concurrency: Math.max(1, capacity.light) }),
      browser: new PQueue({ concurrency: Math.max(1, capacity.browser) }),
    };
  }

  add(slotClass: SlotClass, task: () => Promise<void>): void {
    void this.queues[slotClass].add(task);
  }

  /** No queued task starts any more; those already running carry on. */
  pause(): void {
    for (const c of SLOT_CLASSES) this.queues[c].pause();
  }

  /** Forgets tasks that have not started. */
  clear(): void {
    for (const c of SLOT_CLASSES) this.queues[c].clear();
  }
}
