import type { FastifyInstance, FastifyRequest } from 'fastify';
import { z } from 'zod';
import { getCheck } from '../checks/repository.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import {
  getHeartbeatEvent,
  type HeartbeatState,
  heartbeatEventOf,
  heartbeatEventSchema,
  heartbeatStats,
  heartbeatStatsSchema,
  listHeartbeatEvents,
  recordHeartbeatEvent,
} from '../heartbeats/events.js';
import { checkOfPingToken } from '../heartbeats/tokens.js';
import { defineRoute } from '../http/route.js';

const TAG = 'Heartbeats';
const MAX_USER_AGENT = 512;

/** Heartbeat monitors: the ping receiver (no API key: the token is the secret) and the events it records. */
export function registerHeartbeatRoutes(app: FastifyInstance, { db }: ServerContext): void {
  const tokenParams = z.object({ token: z.string().min(1).max(200) });
  const pingResponse = z.object({ status: z.literal('OK') });

  const receive =
    (state: HeartbeatState) =>
    async ({ params, request }: { params: { token: string }; request: FastifyRequest }) => {
      const found = await checkOfPingToken(db, params.token);
      if (!found) throw notFound('Heartbeat', params.token);
      await recordHeartbeatEvent(db, found.accountId, found.checkId, {
        state,
        source: `HTTP ${request.method}`,
        userAgent: String(request.headers['user-agent'] ?? '').slice(0, MAX_USER_AGENT),
      });
      return { status: 'OK' as const };
    };

  for (const method of ['GET', 'POST'] as const) {
    defineRoute(app, {
      method,
      path: '/heartbeats/{token}',
      summary: 'Ping a heartbeat check: records a PASSING event',
      tag: TAG,
      auth: 'none',
      params: tokenParams,
      responses: {
        200: { description: 'Successful', schema: pingResponse },
        404: { description: 'Unknown token' },
      },
      handler: receive('PASSING'),
    });
    defineRoute(app, {
      method,
      path: '/heartbeats/{token}/fail',
      summary: 'Report a failure to a heartbeat check: records a FAILING event',
      tag: TAG,
      auth: 'none',
      params: tokenParams,
      responses: {
        200: { description: 'Successful', schema: pingResponse },
        404: { description: 'Unknown token' },
      },
      handler: receive('FAILING'),
    });
  }

  const loadHeartbeatCheck = async (accountId: string, checkId: string) => {
    const check = await getCheck(db, accountId, checkId);
    if (check?.checkType !== 'HEARTBEAT') throw notFound('Heartbeat check', checkId);
  };

  defineRoute(app, {
    method: 'GET',
    path: '/v1/checks/heartbeats/{checkId}/events',
    summary: 'List the events of a heartbeat check, newest first',
    tag: TAG,
    auth: 'user',
    params: z.object({ checkId: z.string().min(1) }),
    query: z.object({ limit: z.coerce.number().int().min(1).max(100).default(100) }),
    responses: {
      200: { description: 'Successful', schema: z.array(heartbeatEventSchema) },
      404: { description: 'No such heartbeat check' },
    },
    handler: async ({ auth, params, query }) => {
      await loadHeartbeatCheck(auth.accountId, params.checkId);
      return (await listHeartbeatEvents(db, auth.accountId, params.checkId, query.limit)).map(
        heartbeatEventOf,
      );
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/checks/heartbeats/{checkId}/events/{id}',
    summary: 'Get one event of a heartbeat check with the check’s stats',
    tag: TAG,
    auth: 'user',
    params: z.object({ checkId: z.string().min(1), id: z.string().min(1) }),
    responses: {
      200: {
        description: 'Successful',
        schema: z.object({ event: heartbeatEventSchema, stats: heartbeatStatsSchema }),
      },
      404: { description: 'No such heartbeat check or event' },
    },
    handler: async ({ auth, params }) => {
      await loadHeartbeatCheck(auth.accountId, params.checkId);
      const event = await getHeartbeatEvent(db, auth.accountId, params.checkId, params.id);
      if (!event) throw notFound('Heartbeat event', params.id);
      return {
        event: heartbeatEventOf(event),
        stats: await heartbeatStats(db, auth.accountId, params.checkId),
      };
    },
  });
}
