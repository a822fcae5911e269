import { performance } from 'node:perf_hooks';

/**
 * When the main thread counts as busy: its event loop was busy at least `share` of each of `windows` windows of
 * `windowMs` in a row (one when not given).
 */
export interface BusyWatchOptions {
  windowMs: number;
  share: number;
  windows?: number;
}

/**
 * Two windows in a row: the first seconds after an agent's first run are busy with loading and compiling its run code
 * alone, and once made a 5-s window half busy at 300 runs/s, where a thread had nothing to add (docs/agent.md).
 */
export const BUSY: BusyWatchOptions = { windowMs: 5000, share: 0.5, windows: 2 };

/**
 * Calls `onBusy` once, at the end of the first run of `windows` windows in a row in which this thread's event loop
 * was busy `share` of the time (its utilisation: time running callbacks over the window). Returns a stop for the
 * watch.
 */
export function whenBusy(onBusy: () => void, options: BusyWatchOptions = BUSY): () => void {
  let last = performance.eventLoopUtilization();
  let busyInARow = 0;
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    busyInARow = utilization < options.share ? 0 : busyInARow + 1;
    if (busyInARow < (options.windows ?? 1)) return;
    clearInterval(timer);
    onBusy();
  }, options.windowMs).unref();
  return () => clearInterval(timer);
}
