import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import type { CheckSession } from '../../checks/index.js';
import { ApiError, conflict, notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import type { RunServices } from '../scheduler/run-services.js';
import { cancelCheckSession } from '../sessions/cancel.js';
import { readCheckSession } from '../sessions/read.js';
import { getCheckResult, listCheckResults } from '../sessions/results-query.js';
import { checkResultSchema, checkSessionSchema, completionQuery } from '../sessions/schemas.js';
import { targetSchema } from '../sessions/target.js';
import { triggerCheckSessions } from '../sessions/trigger.js';
import { waitUntilFinished } from '../sessions/wait.js';
import { paginationFields, unixSeconds } from './params.js';

const TAG = 'Check sessions';
const sessionParams = z.object({ checkSessionId: z.string().min(1) });
const triggerBody = z.strictObject({
  target: targetSchema.optional(),
  refreshCache: z.boolean().optional().describe('Accepted for compatibility; runs never use caches'),
});

/** The 408 of a completion wait that ran out: the caller asks again. */
export function stillRunning(what: 'check session' | 'test session', id: string): ApiError {
  const attribute = what === 'check session' ? 'checkSessionId' : 'testSessionId';
  return new ApiError(408, `The ${what} is still running; call again to keep waiting`, {
    retryable: true,
    [attribute]: id,
  });
}

async function readOr404(runs: RunServices, accountId: string, id: string): Promise<CheckSession> {
  const session = await readCheckSession(runs.db, accountId, id, runs.publicUrl, runs.clock());
  if (!session) throw notFound('Check session', id);
  return session;
}

export function registerCheckSessionRoutes(app: FastifyInstance, context: ServerContext): void {
  const runs = context.runs;

  for (const version of ['v1', 'v2'] as const) {
    defineRoute(app, {
      method: 'POST',
      path: `/${version}/check-sessions/trigger`,
      summary: 'Trigger a check session for every check that matches the target (does not wait)',
      tag: TAG,
      auth: 'user',
      body: triggerBody,
      responses: {
        201: { description: 'Created', schema: z.object({ checkSessions: z.array(checkSessionSchema) }) },
        404: { description: 'No check matches the target' },
      },
      handler: async ({ auth, body }) => ({
        checkSessions: await triggerCheckSessions(runs, auth.accountId, body.target),
      }),
    });

    defineRoute(app, {
      method: 'GET',
      path: `/${version}/check-sessions/{checkSessionId}`,
      summary: 'Retrieve a check session (results may be incomplete while it runs)',
      tag: TAG,
      auth: 'user',
      params: sessionParams,
      responses: {
        200: { description: 'Successful', schema: checkSessionSchema },
        404: { description: 'Not found' },
      },
      handler: async ({ auth, params }) => readOr404(runs, auth.accountId, params.checkSessionId),
    });

    defineRoute(app, {
      method: 'GET',
      path: `/${version}/check-sessions/{checkSessionId}/completion`,
      summary: 'Await the completion of a check session (408 with retryable: true while it still runs)',
      tag: TAG,
      auth: 'user',
      params: sessionParams,
      query: completionQuery,
      responses: {
        200: { description: 'Successful', schema: checkSessionSchema },
        404: { description: 'Not found' },
        408: { description: 'Still running: call again' },
      },
      handler: async ({ auth, params, query }) => {
        const id = params.checkSessionId;
        const session = await waitUntilFinished({
          read: () => readCheckSession(runs.db, auth.accountId, id, runs.publicUrl, runs.clock()),
          finished: (s) => s.status !== 'RUNNING',
          events: runs.events,
          event: 'session-finished',
          id,
          maxWaitMs: query.maxWaitSeconds * 1000,
          pollMs: runs.completionPollMs,
        });
        if (!session) throw notFound('Check session', id);
        if (session.status === 'RUNNING') throw stillRunning('check session', id);
        return session;
      },
    });
  }

  defineRoute(app, {
    method: 'POST',
    path: '/v1/check-sessions/{checkSessionId}/cancel',
    summary: 'Cancel an in-progress check session',
    tag: TAG,
    auth: 'user',
    params: sessionParams,
    responses: {
      200: { description: 'Successful', schema: checkSessionSchema },
      404: { description: 'Not found' },
      409: { description: 'The session already finished' },
    },
    handler: async ({ auth, params }) => {
      const id = params.checkSessionId;
      const { outcome, effects } = await cancelCheckSession(runs.db, auth.accountId, id, runs.clock());
      runs.publish(effects);
      if (outcome === 'not-found') throw notFound('Check session', id);
      const session = await readOr404(runs, auth.accountId, id);
      if (outcome === 'already-finished' && session.status !== 'CANCELLED') {
        throw conflict(`The check session already finished with status ${session.status}`, {
          checkSessionId: id,
          status: session.status,
        });
      }
      return session;
    },
  });

  registerCheckResultRoutes(app, runs);
}

const listedResultSchema = checkResultSchema.extend({
  id: z.string().describe('The checkResultId'),
  checkSessionId: z.string(),
  created_at: z.string(),
});

/** The results of a check across its sessions (Checkly's check-results routes). */
function registerCheckResultRoutes(app: FastifyInstance, runs: RunServices): void {
  const checkExists = async (accountId: string, checkId: string) => {
    const rows = await runs.db.query('SELECT 1 FROM checks WHERE id = $1 AND account_id = $2', [
      checkId,
      accountId,
    ]);
    if (rows.length === 0) throw notFound('Check', checkId);
  };

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-results/{checkId}',
    summary: 'List the results of a check, newest first (test sessions excluded)',
    tag: 'Check results',
    auth: 'user',
    params: z.object({ checkId: z.string().min(1) }),
    query: z.object({
      resultType: z
        .enum(['FINAL', 'ATTEMPT', 'ALL'])
        .default('FINAL')
        .describe('Which results (default FINAL)'),
      location: z.string().min(1).optional().describe('Only results of this location'),
      hasFailures: z
        .stringbool()
        .optional()
        .describe('Only failed (true) or only not failed (false) results'),
      from: unixSeconds('Recorded at or after'),
      to: unixSeconds('Recorded at or before'),
      ...paginationFields,
    }),
    responses: {
      200: { description: 'Successful', schema: z.array(listedResultSchema) },
      404: { description: 'No such check' },
    },
    handler: async ({ auth, params, query }) => {
      await checkExists(auth.accountId, params.checkId);
      return listCheckResults(runs.db, auth.accountId, { checkId: params.checkId, ...query });
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-results/{checkId}/{checkResultId}',
    summary: 'Get one result of a check',
    tag: 'Check results',
    auth: 'user',
    params: z.object({ checkId: z.string().min(1), checkResultId: z.string().min(1) }),
    responses: {
      200: { description: 'Successful', schema: listedResultSchema },
      404: { description: 'Not found' },
    },
    handler: async ({ auth, params }) => {
      const result = await getCheckResult(runs.db, auth.accountId, params.checkId, params.checkResultId);
      if (!result) throw notFound('Check result', params.checkResultId);
      return result;
    },
  });
}
