import { randomUUID } from 'node:crypto';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
// The check model's files, not its index: that one loads every kind's zod schema, which a session needs none of
// (a pool thread loads this file and the executors only).
import type { Check } from '../../checks/check.js';
import type { RunSource, SessionStatus } from '../../checks/enums.js';
import { isoTime } from '../../checks/iso-time.js';
import { statusOf } from '../../checks/outcome.js';
import type { CheckResult, CheckSession } from '../../checks/results.js';
import { retryPolicyOf, shouldRetry } from '../../checks/retry.js';
import { runSecrets } from '../../checks/run-secrets.js';
import { secretMasker } from '../../checks/secrets.js';
import { type Variable, VariableSet } from '../../checks/variables.js';
import type { ExecutorRegistry } from '../registry.js';
import { artifactFolderName, keepArtifacts } from '../script/settle-artifacts.js';
import type { ClientCertificate } from '../types.js';
import { type AttemptEnd, runAttempt } from './attempt.js';
import { follow } from './follow-signal.js';

export interface SessionOptions {
  runLocation: string;
  runSource: RunSource;
  /** Variables that override the check's own (e.g. `vantage run --env`). */
  overrides?: readonly Variable[];
  /** Variables the check inherits, highest priority first (group, then account). */
  inherited?: readonly (readonly Variable[])[];
  clientCertificates?: readonly ClientCertificate[];
  /** Cancels the session: the running attempt stops and no retry follows. */
  signal?: AbortSignal;
  /** The executors to run with; the whole registry by default (loaded when first needed). */
  executors?: ExecutorRegistry;
  /** Overrides the kind's execution limit of each attempt, in milliseconds. */
  limitMs?: number;
  /** Where the files of attempts (screenshots, traces, …) are kept; without it they are removed. */
  artifactsDir?: string;
  /** Called with each result as it is made (ATTEMPT results, then the FINAL one). */
  onResult?: (result: CheckResult) => void;
}

/** The whole registry, once imported: an `await import` per session costs more than the session's own work. */
let defaultExecutors: ExecutorRegistry | undefined;

async function loadDefaultExecutors(): Promise<ExecutorRegistry> {
  defaultExecutors = (await import('../registry.js')).defaultExecutors;
  return defaultExecutors;
}

/** The outcome of one attempt as a result record of docs/checks.md. */
export function toCheckResult(
  check: Check,
  end: AttemptEnd,
  resultType: 'FINAL' | 'ATTEMPT',
  attempts: number,
  runLocation: string,
): CheckResult {
  const { attempt } = end;
  return {
    checkResultId: randomUUID(),
    checkId: check.id ?? '',
    checkType: check.checkType,
    name: check.name,
    runLocation,
    resultType,
    hasErrors: attempt.hasErrors,
    hasFailures: attempt.hasFailures,
    isDegraded: attempt.isDegraded,
    overMaxResponseTime: attempt.overMaxResponseTime,
    aborted: end.timedOut || end.cancelled,
    isCancelled: end.cancelled,
    responseTime: attempt.responseTime,
    startedAt: isoTime(attempt.startedAt),
    stoppedAt: isoTime(attempt.stoppedAt),
    attempts,
    errorGroupIds: [],
    ...attempt.detail,
  };
}

export function statusOfAttempt(check: Check, end: AttemptEnd): SessionStatus {
  return statusOf({ ...end.attempt, timedOut: end.timedOut, cancelled: end.cancelled }, check.shouldFail);
}

/**
 * Runs a check to its final result: attempts under the kind's limit, retries by the check's retry strategy
 * (each failed attempt kept as an ATTEMPT result, the last one FINAL), and the check-session record.
 */
export async function runCheckSession(check: Check, options: SessionOptions): Promise<CheckSession> {
  const variables = sessionVariables(check, options);
  // The caller's signal is often shared by every session: each session follows it through a signal of its own,
  // which its attempts and retry waits listen to.
  const following = options.signal && follow(options.signal);
  try {
    return await runSession(check, options, variables, following?.signal);
  } finally {
    following?.release();
  }
}

async function runSession(
  check: Check,
  options: SessionOptions,
  variables: VariableSet,
  signal: AbortSignal | undefined,
): Promise<CheckSession> {
  const attemptOptions = {
    executors: options.executors ?? defaultExecutors ?? (await loadDefaultExecutors()),
    variables,
    mask: secretMasker(runSecrets(check, variables)),
    runLocation: options.runLocation,
    clientCertificates: options.clientCertificates ?? [],
    signal,
    limitMs: options.limitMs,
  };
  const policy = retryPolicyOf(check);
  const startedAt = new Date();
  const results: CheckResult[] = [];
  let status: SessionStatus = 'FAILED';

  // Named when the first attempt leaves files: most runs leave none.
  let artifactsDir: string | null = null;
  const attemptDir = (attemptNo: number) => {
    if (!options.artifactsDir) return null;
    artifactsDir ??= join(options.artifactsDir, artifactFolderName(check.name));
    return join(artifactsDir, `attempt-${attemptNo}`);
  };
  for (let attemptNo = 1; ; attemptNo++) {
    let end = await runAttempt(check, attemptOptions);
    if (end.attempt.artifacts?.length) {
      end = { ...end, attempt: await keepArtifacts(end.attempt, attemptDir(attemptNo)) };
    }
    status = statusOfAttempt(check, end);
    const failed = status === 'FAILED' || status === 'TIMED_OUT';
    const retry =
      failed &&
      !signal?.aborted &&
      shouldRetry(policy, attemptNo - 1, Date.now() - startedAt.getTime(), end.attempt);
    const result = toCheckResult(check, end, retry ? 'ATTEMPT' : 'FINAL', attemptNo, options.runLocation);
    results.push(result);
    options.onResult?.(result);
    if (!retry) break;
    try {
      await sleep(policy.delayMs(attemptNo), undefined, { signal });
    } catch {
      status = 'CANCELLED';
      break;
    }
  }

  return sessionRecord(check, options, { status, startedAt, results });
}

/** The variables a session's check sees: the overrides, its own, then the inherited ones. */
export function sessionVariables(
  check: Check,
  options: Pick<SessionOptions, 'overrides' | 'inherited'>,
): VariableSet {
  return new VariableSet(options.overrides, check.environmentVariables, ...(options.inherited ?? []));
}

/** The check-session record of a session that started at `startedAt` and ends now. */
export function sessionRecord(
  check: Check,
  options: Pick<SessionOptions, 'runLocation' | 'runSource'>,
  outcome: { status: SessionStatus; startedAt: Date; results: CheckResult[] },
): CheckSession {
  const { startedAt } = outcome;
  const stoppedAt = new Date();
  return {
    checkSessionId: randomUUID(),
    checkSessionLink: null,
    checkId: check.id ?? '',
    checkType: check.checkType,
    name: check.name,
    status: outcome.status,
    startedAt: isoTime(startedAt),
    stoppedAt: isoTime(stoppedAt),
    timeElapsed: stoppedAt.getTime() - startedAt.getTime(),
    runLocations: [options.runLocation],
    runSource: options.runSource,
    results: outcome.results,
  };
}
