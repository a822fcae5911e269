import { availableParallelism } from 'node:os';

/**
 * Sessions a thread should have in prospect to be worth its start-up: a thread starts and loads its executors in
 * 0.35–0.4 s of CPU on a small machine, about what 500 URL checks cost (docs/performance.md); with fewer, its share
 * would be done before it has earned back its start.
 */
export const SESSIONS_PER_THREAD = 500;

/**
 * How many threads a pool gets for `sessions` pooled sessions run `concurrency` at a time: one per core, no more
 * than run at once, none that would have too little to do. 0 (no pool: run on the main thread) when fewer than
 * two would be worth it, since one thread would only move the work off the main thread.
 */
export function poolThreads(
  concurrency: number,
  sessions: number,
  cores: number = availableParallelism(),
): number {
  const threads = Math.min(cores, concurrency, Math.floor(sessions / SESSIONS_PER_THREAD));
  return threads >= 2 ? threads : 0;
}
