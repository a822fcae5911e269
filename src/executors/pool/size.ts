import { usableCores } from './cores.js';

/**
 * Sessions a thread should have in prospect to be worth its start-up: a thread starts and loads its executors in
 * 0.35–0.4 s of CPU on a small machine, about what 500 URL checks cost (docs/performance.md); with fewer, its share
 * would be done before it has earned back its start.
 */
export const SESSIONS_PER_THREAD = 500;

/**
 * How many threads a pool gets for `sessions` pooled sessions run `concurrency` at a time: one per core (a CPU
 * quota counted, `usableCores`), no more than run at once, none that would have too little to do. 0 (no pool: run
 * on the main thread) when fewer than two would be worth it, since one thread would only move the work off the main
 * thread.
 */
export function poolThreads(concurrency: number, sessions: number, cores: number = usableCores()): number {
  const threads = Math.min(cores, concurrency, Math.floor(sessions / SESSIONS_PER_THREAD));
  return threads >= 2 ? threads : 0;
}

/**
 * The pool a thread setting asks for (`vantage run --threads`, the agent's AGENT_THREADS): `auto` makes
 * `poolThreads` lanes with the main thread one of them (one thread fewer to start); a number starts that many
 * threads, and the main thread runs only the kinds that are not pooled. No thread: no pool.
 */
export function poolShape(
  setting: number | 'auto',
  concurrency: number,
  sessions: number,
  cores: number = usableCores(),
): { threads: number; mainThread: boolean } {
  if (setting !== 'auto') return { threads: setting, mainThread: false };
  const lanes = poolThreads(concurrency, sessions, cores);
  return { threads: Math.max(0, lanes - 1), mainThread: lanes > 0 };
}
