import type { ScriptCheckResult } from '../../checks/index.js';
import type { RunLog, SandboxExit } from '../../runtimes/index.js';
import { failedAttempt } from '../failed-attempt.js';
import type { Attempt, LocalArtifact } from '../types.js';
import { assetsOf } from './artifacts.js';
import type { ReportSummary } from './report.js';

export type ScriptKind = 'BROWSER' | 'MULTI_STEP' | 'PLAYWRIGHT';

const DETAIL_KEY = {
  BROWSER: 'browserCheckResult',
  MULTI_STEP: 'multiStepCheckResult',
  PLAYWRIGHT: 'playwrightCheckResult',
} as const;

/** What a script run left: how its process ended, its report (if it wrote one), its log and its files. */
export interface ScriptRun {
  kind: ScriptKind;
  startedAt: Date;
  /** How the test command ended; null when the run ended before it (e.g. the install failed). */
  exit: SandboxExit | null;
  summary: ReportSummary | null;
  log: RunLog;
  artifacts: LocalArtifact[];
  /** Why the run failed before its tests ran. */
  setupError?: string | null;
}

/**
 * An attempt that ended before its script ran, with the reason as its error; `permanent` when no other attempt on
 * this agent could run it either (a runtime, engine or Chromium it lacks).
 */
export function scriptNotRun(
  kind: ScriptKind,
  reason: string,
  options: { permanent?: boolean } = {},
): Attempt {
  const detail: ScriptCheckResult = { errors: [reason], logs: [], assets: [], tests: [] };
  return failedAttempt(reason, {
    permanentError: options.permanent,
    detail: { [DETAIL_KEY[kind]]: detail } as Attempt['detail'],
  });
}

/** Why there is no report. */
function missingReport(exit: SandboxExit | null): string {
  if (!exit) return 'the tests did not run';
  if (exit.startError) return `the test runner could not start: ${exit.startError}`;
  if (exit.stopped === 'timeout') return 'the test runner was stopped at its time limit';
  if (exit.stopped === 'aborted') return 'the run was stopped';
  const how = exit.signal ? `was killed by ${exit.signal}` : `exited with code ${exit.code}`;
  return `the test runner ${how} before writing its report (see the log)`;
}

/** The attempt of a script run: failed by a failing test or an error, degraded by the script's helper. */
export function scriptAttempt(run: ScriptRun): Attempt {
  const { summary, exit, log } = run;
  const errors = [...(run.setupError ? [run.setupError] : []), ...(summary?.errors ?? [])];
  if (!summary && !run.setupError) errors.push(missingReport(exit));
  const degraded = summary?.degraded ?? [];
  for (const reason of degraded) log.add('WARN', `marked degraded: ${reason}`);

  const hasFailures = summary?.tests.some((t) => t.outcome === 'unexpected') ?? false;
  const crashed = exit !== null && !exit.stopped && exit.code !== 0 && summary !== null && !summary.failed;
  if (crashed) errors.push(`the test runner exited with code ${exit?.code ?? exit?.signal} (see the log)`);
  const hasErrors = Boolean(run.setupError) || !summary || summary.globalErrors.length > 0 || crashed;

  const detail: ScriptCheckResult = {
    errors,
    logs: log.lines(),
    assets: assetsOf(run.artifacts),
    tests: summary?.tests ?? [],
  };
  const stoppedAt = new Date();
  return {
    hasErrors,
    hasFailures,
    isDegraded: degraded.length > 0,
    overMaxResponseTime: false,
    responseTime: summary?.durationMs || stoppedAt.getTime() - run.startedAt.getTime(),
    startedAt: run.startedAt,
    stoppedAt,
    networkError: false,
    error: errors[0]?.split('\n')[0] ?? null,
    detail: { [DETAIL_KEY[run.kind]]: detail } as Attempt['detail'],
    artifacts: run.artifacts,
  };
}
