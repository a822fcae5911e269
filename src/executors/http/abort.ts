import { OverMaxResponseTimeError, RunAbortedError } from './errors.js';

/** One signal for a run's request: aborted at maxResponseTime or when the run's own signal aborts. */
export interface RunAbort {
  signal: AbortSignal;
  /** Why the request was aborted, or null while it was not. */
  reason(): OverMaxResponseTimeError | RunAbortedError | null;
  dispose(): void;
}

export function runAbort(runSignal: AbortSignal, maxResponseTime: number | null | undefined): RunAbort {
  const controller = new AbortController();
  const onRunAbort = () => controller.abort(new RunAbortedError(runSignal.reason));
  if (runSignal.aborted) onRunAbort();
  else runSignal.addEventListener('abort', onRunAbort, { once: true });
  const timer =
    maxResponseTime == null
      ? undefined
      : setTimeout(() => controller.abort(new OverMaxResponseTimeError(maxResponseTime)), maxResponseTime);
  return {
    signal: controller.signal,
    reason: () => (controller.signal.aborted ? controller.signal.reason : null),
    dispose: () => {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onRunAbort);
    },
  };
}
