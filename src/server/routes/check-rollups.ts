import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { getCheck } from '../checks/repository.js';
import { notFound, validationError } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import { listRollups, type Resolution } from '../retention/read.js';
import { stringIdParams, unixSeconds } from './params.js';

/** The default and the longest window of each resolution, in seconds: an answer stays a few thousand rollups. */
const WINDOWS: Record<Resolution, { default: number; longest: number; says: string }> = {
  hour: { default: 86_400, longest: 31 * 86_400, says: '31 days' },
  day: { default: 30 * 86_400, longest: 400 * 86_400, says: '400 days' },
};

const rollupsQuery = z.object({
  resolution: z
    .enum(['hour', 'day'])
    .describe('hour: one rollup per hour; day: one per UTC day (both kept 13 months)'),
  from: unixSeconds(
    'Rollups of periods that start at or after this (default: 24 hours, or 30 days, before to)',
  ),
  to: unixSeconds('Rollups of periods that start before this (default: now)'),
  location: z.string().min(1).optional().describe('Only the rollups of this location'),
});

const rollupSchema = z.object({
  periodStart: z.string().describe('Start of the hour or UTC day'),
  location: z.string(),
  count: z.number().int().describe('FINAL results (CANCELLED ones are not counted)'),
  failures: z.number().int().describe('FAILED or TIMED_OUT'),
  degraded: z.number().int(),
  responseTime: z
    .object({ p50: z.number(), p95: z.number(), p99: z.number() })
    .nullable()
    .describe(
      'Percentiles in ms of the PASSED, DEGRADED and FAILED results, within 2 % of the exact value; null when none',
    ),
});

const rollupsSchema = z.object({
  checkId: z.string(),
  resolution: z.enum(['hour', 'day']),
  from: z.string(),
  to: z.string(),
  rollups: z
    .array(rollupSchema)
    .describe('Oldest first, then by location; periods without results are absent'),
});

export function registerCheckRollupRoutes(app: FastifyInstance, context: ServerContext): void {
  const { db, runs } = context;
  defineRoute(app, {
    method: 'GET',
    path: '/v1/checks/{id}/rollups',
    summary: 'Hourly or daily counts, failures and response-time percentiles of a check, per location',
    tag: 'Checks',
    auth: 'user',
    params: stringIdParams,
    query: rollupsQuery,
    responses: {
      200: { description: 'Successful', schema: rollupsSchema },
      404: { description: 'No such check' },
    },
    handler: async ({ auth, params, query }) => {
      const window = WINDOWS[query.resolution];
      const to = query.to ?? Math.floor(runs.clock().getTime() / 1000);
      const from = query.from ?? to - window.default;
      if (from >= to) throw validationError('query', [{ path: 'from', message: 'must be less than to' }]);
      if (to - from > window.longest) {
        throw validationError('query', [
          {
            path: 'from',
            message: `must be at most ${window.says} before to for resolution ${query.resolution}`,
          },
        ]);
      }
      if (!(await getCheck(db, auth.accountId, params.id))) throw notFound('Check', params.id);
      const [fromDate, toDate] = [new Date(from * 1000), new Date(to * 1000)];
      return {
        checkId: params.id,
        resolution: query.resolution,
        from: fromDate.toISOString(),
        to: toDate.toISOString(),
        rollups: await listRollups(db, {
          accountId: auth.accountId,
          checkId: params.id,
          resolution: query.resolution,
          from: fromDate,
          to: toDate,
          location: query.location,
        }),
      };
    },
  });
}
