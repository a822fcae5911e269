import { randomUUID } from 'node:crypto';
import type { Check } from '../../checks/check.js';
import { EXECUTION_LIMIT_MS } from '../../checks/enums.js';
import { maskDeep } from '../../checks/secrets.js';
import { failedAttempt } from '../failed-attempt.js';
import type { ExecutorRegistry } from '../registry.js';
import type { Attempt, ExecutionContext } from '../types.js';

/** How an attempt ended besides what the executor found. */
export interface AttemptEnd {
  attempt: Attempt;
  timedOut: boolean;
  cancelled: boolean;
}

/** Time an executor gets after its signal fired to return on its own, before the run stops waiting for it. */
const STOP_GRACE_MS = 2000;

export class RunTimeoutError extends Error {
  constructor(limitMs: number) {
    super(`the run exceeded its execution limit of ${limitMs} ms`);
    this.name = 'RunTimeoutError';
  }
}

export class RunCancelledError extends Error {
  constructor() {
    super('the run was cancelled');
    this.name = 'RunCancelledError';
  }
}

export interface AttemptOptions extends Omit<ExecutionContext, 'signal' | 'runId'> {
  executors: ExecutorRegistry;
  /** Cancels the run. */
  signal?: AbortSignal;
  /** Overrides the kind's execution limit (for a lease shorter than the limit). */
  limitMs?: number;
  /** The run's id (the control plane's, on an agent); a fresh one for runs of `vantage run`. */
  runId?: string;
}

/**
 * Runs one attempt of a check under its kind's execution limit. The executor sees one signal that fires on
 * cancel or at the limit; an executor that does not return in time is left behind and the attempt ends anyway.
 * Secret values are masked over everything the attempt reports.
 */
export async function runAttempt(check: Check, options: AttemptOptions): Promise<AttemptEnd> {
  const limitMs = options.limitMs ?? EXECUTION_LIMIT_MS[check.checkType];
  const controller = new AbortController();
  const startedAt = new Date();
  // Set while the executor runs: a stop then leaves it STOP_GRACE_MS to return before the attempt ends without it.
  let giveUp: (() => void) | null = null;
  let grace: NodeJS.Timeout | undefined;
  const stop = (reason: Error) => {
    if (controller.signal.aborted) return;
    controller.abort(reason);
    if (giveUp) grace = setTimeout(giveUp, STOP_GRACE_MS).unref();
  };
  const onCancel = () => stop(new RunCancelledError());
  if (options.signal?.aborted) onCancel();
  options.signal?.addEventListener('abort', onCancel, { once: true });
  const deadline = setTimeout(() => stop(new RunTimeoutError(limitMs)), limitMs);

  const context: ExecutionContext = {
    signal: controller.signal,
    variables: options.variables,
    mask: options.mask,
    runLocation: options.runLocation,
    runId: options.runId ?? randomUUID(),
    clientCertificates: options.clientCertificates,
  };
  let attempt: Attempt | undefined;
  try {
    const running = options.executors[check.checkType](check, context);
    // One promise around the executor's (not a race with a second one, nor a listener on its signal): per attempt.
    attempt = await new Promise<Attempt | undefined>((resolve, reject) => {
      giveUp = () => resolve(undefined);
      running.then(resolve, reject);
    });
  } catch (error) {
    // An executor must not throw; if one does, the run fails with its message rather than the batch.
    attempt = failedAttempt(`internal error in the ${check.checkType} executor: ${messageOf(error)}`, {
      startedAt,
      stoppedAt: startedAt,
    });
  } finally {
    clearTimeout(deadline);
    clearTimeout(grace);
    options.signal?.removeEventListener('abort', onCancel);
  }

  const reason = controller.signal.reason;
  const timedOut = reason instanceof RunTimeoutError;
  const cancelled = reason instanceof RunCancelledError;
  if (!attempt) attempt = failedAttempt(messageOf(reason), { startedAt, stoppedAt: startedAt });
  if (timedOut || cancelled) {
    attempt = { ...attempt, hasErrors: true, error: messageOf(reason), stoppedAt: new Date() };
  }
  // A run without secrets (most) keeps its detail as it is rather than a masked copy of every string in it.
  if (options.mask.masksNothing) return { attempt, timedOut, cancelled };
  const { error, detail } = maskDeep({ error: attempt.error, detail: attempt.detail }, options.mask);
  return { attempt: { ...attempt, error, detail }, timedOut, cancelled };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
