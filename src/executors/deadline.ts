/** Why a deadline's signal fired: maxResponseTime ran out, or the run's own signal aborted (cancel or execution limit). */
export type StopReason = 'overMaxResponseTime' | 'runStopped';

/** One signal for both ways a request ends early, remembering which came first. */
export interface Deadline {
  /** Aborted with the StopReason as its reason. */
  readonly signal: AbortSignal;
  /** Which way it ended early, or null while it has not. */
  reason(): StopReason | null;
  dispose(): void;
}

/**
 * A signal that aborts at maxResponseTime from now or when the run's signal aborts, whichever comes first.
 * @param maxResponseTime in milliseconds; null for none (the run's signal still applies)
 */
export function startDeadline(runSignal: AbortSignal, maxResponseTime: number | null | undefined): Deadline {
  const controller = new AbortController();
  const stop = (why: StopReason) => {
    if (!controller.signal.aborted) controller.abort(why);
  };
  const onRunAborted = () => stop('runStopped');
  if (runSignal.aborted) onRunAborted();
  else runSignal.addEventListener('abort', onRunAborted, { once: true });
  const timer =
    maxResponseTime == null ? undefined : setTimeout(() => stop('overMaxResponseTime'), maxResponseTime);
  return {
    signal: controller.signal,
    reason: () => (controller.signal.aborted ? (controller.signal.reason as StopReason) : null),
    dispose: () => {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onRunAborted);
    },
  };
}

/** The one wording of a response time over maxResponseTime, whether the deadline stopped it or it came late. */
export function overMaxResponseTimeMessage(responseTime: number, maxResponseTime: number | null): string {
  return `response time ${responseTime} ms exceeded maxResponseTime of ${maxResponseTime} ms`;
}

/** The same limit, for a step the deadline stopped before anything answered it. */
export function noAnswerWithin(maxResponseTime: number | null): string {
  return `no answer within maxResponseTime of ${maxResponseTime} ms`;
}
