import { setTimeout as sleep } from 'node:timers/promises';
import type { Logger } from '../observability/logger.js';

/** The agent's part in a graceful shutdown, in the order they are taken. */
export interface ShutdownSteps {
  /** Readiness 503, no more credit, runs not started handed back; returns how many were handed back. */
  stopTakingWork(): number;
  /** Resolves when no run is held any more. */
  runsDone(): Promise<void>;
  /** The grace period is over: the runs still going are cancelled (and reported CANCELLED). */
  cancelRuns(): void;
  /** Sends what is in the spool until the deadline; true when the spool is empty. */
  flushResults(deadline: number): Promise<boolean>;
  /** Closes the connection, the health server and everything else. */
  close(): Promise<void>;
}

/** Time results get to reach the control plane even when the grace period is spent. */
const MIN_FLUSH_MS = 2000;

/**
 * Stops the agent without losing work: no new runs, unstarted runs released, running ones given the grace
 * period to finish (the rest cancelled), the spool flushed as far as the control plane allows.
 */
export async function gracefulShutdown(steps: ShutdownSteps, graceMs: number, log: Logger): Promise<void> {
  const deadline = Date.now() + graceMs;
  const released = steps.stopTakingWork();
  log.info(
    { released, graceSeconds: Math.round(graceMs / 1000) },
    'shutting down: no new runs; running ones may finish within the grace period',
  );
  const grace = new AbortController();
  const finished = await Promise.race([
    steps.runsDone().then(() => true),
    sleep(graceMs, false, { signal: grace.signal }).catch(() => false),
  ]);
  grace.abort();
  if (!finished) {
    log.warn('the grace period is over: cancelling the runs still going');
    steps.cancelRuns();
    await steps.runsDone();
  }
  if (!(await steps.flushResults(Math.max(deadline, Date.now() + MIN_FLUSH_MS)))) {
    log.warn('some results are still in the spool; they are sent when the agent starts again');
  }
  await steps.close();
  log.info('agent stopped');
}

export interface SignalHandlers {
  /** The first SIGTERM or SIGINT. */
  graceful(signal: NodeJS.Signals): void;
  /** A second signal: exit at once. */
  immediate(signal: NodeJS.Signals): void;
}

/** First SIGTERM/SIGINT: graceful shutdown; a second one: exit at once. Returns a function removing them. */
export function onShutdownSignals(handlers: SignalHandlers): () => void {
  let received = false;
  const onSignal = (signal: NodeJS.Signals) => {
    if (received) return handlers.immediate(signal);
    received = true;
    handlers.graceful(signal);
  };
  process.on('SIGTERM', onSignal);
  process.on('SIGINT', onSignal);
  return () => {
    process.off('SIGTERM', onSignal);
    process.off('SIGINT', onSignal);
  };
}
