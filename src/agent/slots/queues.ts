import { SLOT_CLASSES, type SlotClass, type SlotCounts } from '../../protocol/slots.js';

type Task = () => Promise<void>;

/** Tasks started in arrival order, at most `concurrency` at once. */
class TaskQueue {
  private readonly waiting: Task[] = [];
  private running = 0;
  paused = false;

  constructor(private readonly concurrency: number) {}

  add(task: Task): void {
    this.waiting.push(task);
    this.startWhatFits();
  }

  clear(): void {
    this.waiting.length = 0;
  }

  private startWhatFits(): void {
    while (!this.paused && this.running < this.concurrency) {
      const task = this.waiting.shift();
      if (!task) return;
      this.running++;
      void task().finally(() => {
        this.running--;
        this.startWhatFits();
      });
    }
  }
}

/**
 * One queue per slot class, each limited to that class's slots. A plain array rather than p-queue: a run's way
 * through the agent is on its CPU budget, and p-queue's promises, events and abort plumbing cost more than the rest.
 */
export class SlotQueues {
  private readonly queues: Record<SlotClass, TaskQueue>;

  constructor(capacity: Readonly<SlotCounts>) {
    this.queues = {
      light: new TaskQueue(Math.max(1, capacity.light)),
      browser: new TaskQueue(Math.max(1, capacity.browser)),
    };
  }

  add(slotClass: SlotClass, task: Task): void {
    this.queues[slotClass].add(task);
  }

  /** No queued task starts any more; those already running carry on. */
  pause(): void {
    for (const c of SLOT_CLASSES) this.queues[c].paused = true;
  }

  /** Forgets tasks that have not started. */
  clear(): void {
    for (const c of SLOT_CLASSES) this.queues[c].clear();
  }
}
