import { z } from 'zod';
import { CHECK_TYPES, RUN_SOURCES, SESSION_STATUSES } from '../../checks/index.js';

/** The flags of a result: what an agent reports, and what decides its status. */
export const resultFlagFields = {
  hasErrors: z.boolean(),
  hasFailures: z.boolean(),
  isDegraded: z.boolean(),
  overMaxResponseTime: z.boolean(),
  aborted: z.boolean(),
  isCancelled: z.boolean(),
};

/** A result record (docs/checks.md, Result records); the kind's detail object is one more field. */
export const checkResultSchema = z.looseObject({
  checkResultId: z.string(),
  checkId: z.string(),
  checkType: z.enum(CHECK_TYPES),
  name: z.string(),
  runLocation: z.string(),
  resultType: z.enum(['FINAL', 'ATTEMPT']),
  ...resultFlagFields,
  responseTime: z.number(),
  startedAt: z.string(),
  stoppedAt: z.string(),
  attempts: z.number().int(),
  errorGroupIds: z.array(z.string()),
});

export const checkSessionSchema = z.object({
  checkSessionId: z.string(),
  checkSessionLink: z.string().nullable(),
  checkId: z.string(),
  checkType: z.enum(CHECK_TYPES),
  name: z.string(),
  status: z.enum([...SESSION_STATUSES, 'RUNNING']).describe('RUNNING until the session finished'),
  startedAt: z.string(),
  stoppedAt: z.string().nullable(),
  timeElapsed: z.number().describe('Milliseconds'),
  runLocations: z.array(z.string()),
  runSource: z.enum(RUN_SOURCES),
  results: z.array(checkResultSchema),
});

export const testSessionSchema = z.object({
  testSessionId: z.string(),
  name: z.string(),
  status: z.enum(['RUNNING', 'FAILED', 'PASSED', 'CANCELLED']),
  location: z.string().nullable(),
  refresh: z.boolean(),
  errorGroupIds: z.array(z.string()),
  startedAt: z.string(),
  stoppedAt: z.string().nullable(),
  timeElapsed: z.number(),
  checkSessions: z.array(checkSessionSchema),
});

/** `?maxWaitSeconds=1..30` (default 30) of the completion routes. */
export const completionQuery = z.object({
  maxWaitSeconds: z.coerce
    .number()
    .int()
    .min(1)
    .max(30)
    .default(30)
    .describe('How long to wait for the session to finish, 1 to 30 seconds (default 30)'),
});
