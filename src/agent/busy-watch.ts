import { performance } from 'node:perf_hooks';

/** When the main thread counts as busy: its event loop was busy at least `share` of a window of `windowMs`. */
export interface BusyWatchOptions {
  windowMs: number;
  share: number;
}

export const BUSY: BusyWatchOptions = { windowMs: 5000, share: 0.5 };

/**
 * Calls `onBusy` once, at the end of the first window in which this thread's event loop was busy `share` of the
 * time (its utilisation: time running callbacks over the window). Returns a stop for the watch.
 */
export function whenBusy(onBusy: () => void, options: BusyWatchOptions = BUSY): () => void {
  let last = performance.eventLoopUtilization();
  const timer = setInterval(() => {
    const now = performance.eventLoopUtilization();
    const { utilization } = performance.eventLoopUtilization(now, last);
    last = now;
    if (utilization < options.share) return;
    clearInterval(timer);
    onBusy();
  }, options.windowMs).unref();
  return () => clearInterval(timer);
}
