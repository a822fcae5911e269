import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { LOCATIONS } from '../../checks/index.js';
import { conflict, notFound, validationError } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { cancelTestSession } from '../sessions/cancel.js';
import { readTestSession } from '../sessions/read.js';
import { completionQuery, testSessionSchema } from '../sessions/schemas.js';
import { targetSchema } from '../sessions/target.js';
import { triggerTestSession } from '../sessions/trigger.js';
import { waitUntilFinished } from '../sessions/wait.js';
import type { Db } from '../store/db.js';
import { stillRunning } from './check-sessions.js';

const TAG = 'Test sessions';
const testSessionParams = z.object({ testSessionId: z.string().min(1) });

const triggerBody = z.strictObject({
  name: z.string().min(1).max(150).describe('Name of the test session'),
  location: z
    .string()
    .min(1)
    .optional()
    .describe('A public region or a private-location slug to run every check at'),
  runLocation: z.string().min(1).optional().describe('Alias of location (Checkly)'),
  refresh: z.boolean().optional().describe('Skip existing caches and install dependencies from scratch'),
  refreshCache: z.boolean().optional().describe('Alias of refresh (Checkly)'),
  target: targetSchema.optional(),
});

/** A test session's location must be a public region or a private location of the account. */
async function checkLocation(db: Db, accountId: string, location: string, field: string): Promise<void> {
  if ((LOCATIONS as readonly string[]).includes(location)) return;
  const rows = await db.query('SELECT 1 FROM private_locations WHERE account_id = $1 AND slug_name = $2', [
    accountId,
    location,
  ]);
  if (rows.length > 0) return;
  throw validationError('body', [
    {
      path: field,
      message: `must be a public region (${LOCATIONS[0]} …) or the slug of one of your private locations`,
    },
  ]);
}

export function registerTestSessionRoutes(app: FastifyInstance, context: ServerContext): void {
  const runs = context.runs;

  defineRoute(app, {
    method: 'POST',
    path: '/v1/test-sessions/trigger',
    summary: 'Trigger a test session with the checks that match the target (never alerts; does not wait)',
    tag: TAG,
    auth: 'user',
    body: triggerBody,
    responses: {
      201: { description: 'Created', schema: testSessionSchema },
      404: { description: 'No check matches the target' },
    },
    handler: async ({ auth, body }) => {
      const location = body.location ?? body.runLocation;
      if (location)
        await checkLocation(runs.db, auth.accountId, location, body.location ? 'location' : 'runLocation');
      return triggerTestSession(runs, auth.accountId, {
        name: body.name,
        location: location ?? null,
        refresh: body.refresh ?? body.refreshCache ?? false,
        target: body.target,
      });
    },
  });

  const read = (accountId: string, id: string) =>
    readTestSession(runs.db, accountId, id, runs.publicUrl, runs.clock());

  defineRoute(app, {
    method: 'GET',
    path: '/v1/test-sessions/{testSessionId}',
    summary: 'Retrieve a test session (may be incomplete while it runs)',
    tag: TAG,
    auth: 'user',
    params: testSessionParams,
    responses: {
      200: { description: 'Successful', schema: testSessionSchema },
      404: { description: 'Not found' },
    },
    handler: async ({ auth, params }) => {
      const session = await read(auth.accountId, params.testSessionId);
      if (!session) throw notFound('Test session', params.testSessionId);
      return session;
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/test-sessions/{testSessionId}/completion',
    summary: 'Await the completion of a test session (408 with retryable: true while it still runs)',
    tag: TAG,
    auth: 'user',
    params: testSessionParams,
    query: completionQuery,
    responses: {
      200: { description: 'Successful', schema: testSessionSchema },
      404: { description: 'Not found' },
      408: { description: 'Still running: call again' },
    },
    handler: async ({ auth, params, query }) => {
      const id = params.testSessionId;
      const session = await waitUntilFinished({
        read: () => read(auth.accountId, id),
        finished: (s) => s.status !== 'RUNNING',
        events: runs.events,
        event: 'test-session-finished',
        id,
        maxWaitMs: query.maxWaitSeconds * 1000,
        pollMs: runs.completionPollMs,
      });
      if (!session) throw notFound('Test session', id);
      if (session.status === 'RUNNING') throw stillRunning('test session', id);
      return session;
    },
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/test-sessions/{testSessionId}/cancel',
    summary: 'Cancel a running test session and its check sessions',
    tag: TAG,
    auth: 'user',
    params: testSessionParams,
    responses: {
      200: { description: 'Successful', schema: testSessionSchema },
      404: { description: 'Not found' },
      409: { description: 'The test session already finished' },
    },
    handler: async ({ auth, params }) => {
      const id = params.testSessionId;
      const { outcome, effects } = await cancelTestSession(runs.db, auth.accountId, id, runs.clock());
      runs.publish(effects);
      const session = await read(auth.accountId, id);
      if (outcome === 'not-found' || !session) throw notFound('Test session', id);
      if (outcome === 'already-finished' && session.status !== 'CANCELLED') {
        throw conflict(`The test session already finished with status ${session.status}`, {
          testSessionId: id,
          status: session.status,
        });
      }
      return session;
    },
  });
}
