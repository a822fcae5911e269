import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { CHECK_TYPES } from '../../checks/index.js';
import { checkAggregates, checkSummaries, WINDOWS } from '../analytics/aggregates.js';
import { StatusFeed } from '../check-statuses/feed.js';
import { CHECK_STATES } from '../check-statuses/status.js';
import { checkStatuses } from '../check-statuses/statuses.js';
import { getCheck } from '../checks/repository.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { stringIdParams } from './params.js';

/** How soon a browser reconnects a dropped stream, and how often an idle stream says it is alive. */
const SSE_RETRY_MS = 3_000;
const SSE_KEEP_ALIVE_MS = 15_000;

const checkStatusSchema = z.object({
  name: z.string(),
  checkId: z.string(),
  hasFailures: z.boolean().describe('The last finished run failed'),
  hasErrors: z.boolean().describe('The last finished run ended on an error'),
  isDegraded: z.boolean(),
  longestRun: z.number().nullable().describe('Slowest response time in ms of the last run’s locations'),
  shortestRun: z.number().nullable().describe('Fastest response time in ms of the last run’s locations'),
  lastRunLocation: z.string().nullable(),
  lastCheckRunId: z.string().nullable().describe('The id of the last run’s result'),
  lastCheckSessionId: z.string().nullable(),
  lastRunAt: z.string().nullable(),
  sslDaysRemaining: z.number().nullable(),
  state: z
    .enum(CHECK_STATES)
    .describe('PAUSED (deactivated), MUTED, else the alert state; NO_DATA before the first run'),
  alertState: z.enum(['PASSING', 'DEGRADED', 'FAILING']).nullable(),
  checkType: z.enum(CHECK_TYPES),
  activated: z.boolean().describe('The check and its group are activated'),
  muted: z.boolean(),
  tags: z.array(z.string()),
  groupId: z.number().int().nullable(),
  locations: z.array(z.string()),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});

const responseTimeSchema = z
  .object({ p50: z.number(), p95: z.number(), p99: z.number() })
  .nullable()
  .describe('Percentiles in ms, within 2 % of the exact value; null when no result measured a response');

const aggregateFields = {
  count: z.number().int().describe('FINAL results (CANCELLED ones are not counted)'),
  failures: z.number().int().describe('FAILED or TIMED_OUT'),
  degraded: z.number().int(),
  successRatio: z
    .number()
    .nullable()
    .describe('Share of results that did not fail, 0–1; null without results'),
  responseTime: responseTimeSchema,
};

const windowQuery = z.enum(Object.keys(WINDOWS) as [keyof typeof WINDOWS, ...(keyof typeof WINDOWS)[]]);

const checkAggregatesSchema = z.object({
  checkId: z.string(),
  window: windowQuery,
  from: z.string(),
  to: z.string(),
  stepMs: z.number().int().describe('Milliseconds between the points of the series'),
  total: z.object(aggregateFields),
  locations: z.array(z.object({ location: z.string(), ...aggregateFields })),
  series: z
    .array(z.object({ periodStart: z.string(), ...aggregateFields }))
    .describe('All locations, oldest first'),
  locationSeries: z.array(z.object({ periodStart: z.string(), location: z.string(), ...aggregateFields })),
});

const summariesSchema = z.object({
  from: z.string(),
  to: z.string(),
  stepMs: z.number().int(),
  checks: z.array(
    z.object({
      checkId: z.string(),
      ...aggregateFields,
      responseTimes: z
        .array(z.number().nullable())
        .describe('The median response time in ms of each step, oldest first (null: no result measured one)'),
    }),
  ),
});

/** What the web app's pages read, in the public API so that scripts can read it too. */
export function registerCheckStatusRoutes(app: FastifyInstance, { db, runs, log }: ServerContext): void {
  const feed = new StatusFeed(db, runs.clock, (error) =>
    log.error({ err: error }, 'the check-status feed failed'),
  );
  const streams = new Set<() => void>();
  // Open streams would hold the server's close until each browser hung up.
  app.addHook('preClose', async () => {
    for (const end of streams) end();
    feed.stop();
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-statuses',
    summary: 'The current status of every check: its state and what its last run found',
    tag: 'Check statuses',
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(checkStatusSchema) } },
    handler: async ({ auth }) => checkStatuses(db, auth.accountId),
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-statuses/events',
    summary:
      'Server-sent events: a `status` event with a check’s status each time it changes (runs, alerts, edits)',
    tag: 'Check statuses',
    auth: 'user',
    responses: {
      200: { description: 'text/event-stream; each `status` event’s data is a check status as JSON' },
    },
    handler: async ({ auth, request, reply }) => {
      reply.hijack();
      const raw = reply.raw;
      raw.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        'x-accel-buffering': 'no',
      });
      raw.write(`retry: ${SSE_RETRY_MS}\n\n`);
      const stop = feed.listen(auth.accountId, (status) => {
        raw.write(`event: status\ndata: ${JSON.stringify(status)}\n\n`);
      });
      // A comment now and then keeps proxies from closing an idle stream.
      const keepAlive = setInterval(() => raw.write(': keep-alive\n\n'), SSE_KEEP_ALIVE_MS);
      const end = () => {
        clearInterval(keepAlive);
        stop();
        streams.delete(end);
        raw.end();
      };
      streams.add(end);
      request.raw.on('close', end);
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-statuses/{id}',
    summary: 'The current status of one check',
    tag: 'Check statuses',
    auth: 'user',
    params: stringIdParams,
    responses: {
      200: { description: 'Successful', schema: checkStatusSchema },
      404: { description: 'No such check' },
    },
    handler: async ({ auth, params }) => {
      const [status] = await checkStatuses(db, auth.accountId, [params.id]);
      if (!status) throw notFound('Check', params.id);
      return status;
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/checks/{id}/aggregates',
    summary:
      'A check’s success ratio, failures and response-time percentiles over a window, per location and step',
    tag: 'Check statuses',
    auth: 'user',
    params: stringIdParams,
    query: z.object({
      window: windowQuery
        .default('24h')
        .describe('1h (steps of a minute), 24h or 7d (an hour), 30d (a day); ends now'),
      location: z.string().min(1).optional().describe('Only this location’s results'),
    }),
    responses: {
      200: { description: 'Successful', schema: checkAggregatesSchema },
      404: { description: 'No such check' },
    },
    handler: async ({ auth, params, query }) => {
      if (!(await getCheck(db, auth.accountId, params.id))) throw notFound('Check', params.id);
      return checkAggregates(db, auth.accountId, params.id, query.window, runs.clock(), query.location);
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/check-aggregates',
    summary:
      'Every check’s success ratio and response-time percentiles over a window, with a median per step',
    tag: 'Check statuses',
    auth: 'user',
    query: z.object({ window: windowQuery.default('24h').describe('1h, 24h, 7d or 30d; ends now') }),
    responses: { 200: { description: 'Successful', schema: summariesSchema } },
    handler: async ({ auth, query }) => {
      const ids = (
        await db.query<{ id: string }>(
          'SELECT id FROM checks WHERE account_id = $1 ORDER BY created_at, id',
          [auth.accountId],
        )
      ).map((r) => r.id);
      return checkSummaries(db, auth.accountId, ids, query.window, runs.clock());
    },
  });
}
