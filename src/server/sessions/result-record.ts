import { randomUUID } from 'node:crypto';
import { z } from 'zod';
import {
  type CheckResult,
  type CheckType,
  EXECUTION_LIMIT_MS,
  type SessionStatus,
  statusOf,
  type ValidationProblem,
} from '../../checks/index.js';
import type { RunRow } from '../queue/run.js';
import { resultFlagFields } from './schemas.js';

/** The flags and times every uploaded result must carry; the kind's detail object passes through as sent. */
const uploadedRecordSchema = z
  .looseObject({
    ...resultFlagFields,
    responseTime: z.number().min(0),
    startedAt: z.iso.datetime({ offset: true }),
    stoppedAt: z.iso.datetime({ offset: true }),
  })
  .refine((r) => Date.parse(r.stoppedAt) >= Date.parse(r.startedAt), {
    path: ['stoppedAt'],
    message: 'must not be before startedAt',
  });
export type UploadedRecord = z.infer<typeof uploadedRecordSchema>;

export function parseUploadedRecord(record: unknown): ReturnType<typeof uploadedRecordSchema.safeParse> {
  return uploadedRecordSchema.safeParse(record);
}

/** The final status of one result, by the check's shouldFail (timed out: aborted without being cancelled). */
export function statusOfRecord(record: UploadedRecord, shouldFail: boolean): SessionStatus {
  return statusOf(
    {
      hasErrors: record.hasErrors,
      hasFailures: record.hasFailures,
      isDegraded: record.isDegraded,
      overMaxResponseTime: record.overMaxResponseTime,
      cancelled: record.isCancelled,
      timedOut: record.aborted && !record.isCancelled,
    },
    shouldFail,
  );
}

function validIso(value: string | undefined, fallback: Date): string {
  const time = value === undefined ? Number.NaN : Date.parse(value);
  return Number.isNaN(time) ? fallback.toISOString() : new Date(time).toISOString();
}

/** Slack for what an agent does around a run's execution limit (setup, teardown, artifacts, a slow machine). */
const RUN_SLACK_MS = 60_000;

/**
 * Times no run of this kind can have (longer than twice its execution limit, or a response time longer than the
 * run itself), as validation problems; none for a plausible record.
 */
export function implausibleTimes(record: UploadedRecord, checkType: CheckType): ValidationProblem[] {
  const duration = Date.parse(record.stoppedAt) - Date.parse(record.startedAt);
  const longest = 2 * EXECUTION_LIMIT_MS[checkType] + RUN_SLACK_MS;
  const problems: ValidationProblem[] = [];
  if (duration > longest) {
    problems.push({ path: 'result.stoppedAt', message: `a ${checkType} run lasts at most ${longest} ms` });
  }
  if (record.responseTime > duration + 1000) {
    problems.push({
      path: 'result.responseTime',
      message: 'must not be longer than the run (stoppedAt - startedAt)',
    });
  }
  return problems;
}

/** An agent's record with what the control plane owns set from the run: ids, names, location, type, attempts. */
export function storedRecord(
  uploaded: UploadedRecord,
  run: RunRow,
  facts: { resultType: 'FINAL' | 'ATTEMPT'; errorGroupIds: string[]; now: Date },
): CheckResult {
  const check = run.payload.check;
  return {
    ...uploaded,
    checkResultId: randomUUID(),
    checkId: run.check_id,
    checkType: run.check_type,
    name: typeof check.name === 'string' ? check.name : '',
    runLocation: run.location,
    resultType: facts.resultType,
    startedAt: validIso(uploaded.startedAt, facts.now),
    stoppedAt: validIso(uploaded.stoppedAt, facts.now),
    attempts: run.attempt,
    errorGroupIds: facts.errorGroupIds,
  };
}

/** The result of a run that never ran to its end on an agent: expired, lost its lease, or cancelled. */
export function unranRecord(
  run: RunRow,
  outcome: { status: 'TIMED_OUT' | 'CANCELLED'; reason: string; now: Date },
): UploadedRecord {
  return {
    hasErrors: outcome.status === 'TIMED_OUT',
    hasFailures: false,
    isDegraded: false,
    overMaxResponseTime: false,
    aborted: true,
    isCancelled: outcome.status === 'CANCELLED',
    responseTime: 0,
    startedAt: run.scheduled_at.toISOString(),
    stoppedAt: outcome.now.toISOString(),
    errorResult: { requestError: outcome.reason },
  };
}
