/** Why a request was stopped: the check's maxResponseTime ran out, or the run was cancelled or hit its limit. */
export type StopReason = 'timeout' | 'stopped';

/** One signal for both ways a request ends early, remembering which one came first. */
export interface Deadline {
  signal: AbortSignal;
  reason(): StopReason | null;
  dispose(): void;
}

/** @param limitMs the time limit from now; null for none (the run's own signal still applies) */
export function startDeadline(runSignal: AbortSignal, limitMs: number | null): Deadline {
  const controller = new AbortController();
  let reason: StopReason | null = null;
  const stop = (why: StopReason) => {
    if (reason) return;
    reason = why;
    controller.abort(why);
  };
  const onRunAborted = () => stop('stopped');
  const timer = limitMs == null ? undefined : setTimeout(() => stop('timeout'), limitMs);
  if (runSignal.aborted) stop('stopped');
  else runSignal.addEventListener('abort', onRunAborted, { once: true });
  return {
    signal: controller.signal,
    reason: () => reason,
    dispose: () => {
      clearTimeout(timer);
      runSignal.removeEventListener('abort', onRunAborted);
    },
  };
}
