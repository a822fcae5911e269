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
} from '../heartbeats/events.js';
import { receivePing } from '../heartbeats/pings.js';
import { defineRoute } from '../http/route.js';

const TAG = 'Heartbeats';
const MAX_USER_AGENT = 512;

/** The largest ping body read; the event keeps its first MAX_PING_BODY characters. */
const PING_BODY_LIMIT = 1024 * 1024;

/** Heartbeat monitors: the ping receiver (no API key: the token is the secret) and the events it records. */
export function registerHeartbeatRoutes(app: FastifyInstance, { db, runs }: ServerContext): void {
  const tokenParams = z.object({ token: z.string().min(1).max(200) });
  const pingResponse = z.object({ status: z.literal('OK') });

  const receive =
    (state: HeartbeatState) =>
    async ({ params, request }: { params: { token: string }; request: FastifyRequest }) => {
      const effects = await receivePing(
        db,
        params.token,
        {
          state,
          method: request.method,
          ip: request.ip,
          userAgent: String(request.headers['user-agent'] ?? '').slice(0, MAX_USER_AGENT),
          body: typeof request.body === 'string' ? request.body : null,
        },
        { now: runs.clock(), onFinished: runs.onSessionFinished },
      );
      runs.publish(effects);
      return { status: 'OK' as const };
    };

  // A ping's body is whatever the job sends (its output, a JSON report): kept as text, whatever its type.
  app.register(async (pings) => {
    pings.removeAllContentTypeParsers();
    pings.addContentTypeParser(
      '*',
      { parseAs: 'string', bodyLimit: PING_BODY_LIMIT },
      (_request, body, done) => done(null, body),
    );
    const receivers = [
      ['', 'Ping a heartbeat check: records a PASSING event; a POST body is kept with it', 'PASSING'],
      [
        '/fail',
        'Report a failure to a heartbeat check: records a FAILING event and fails the check at once',
        'FAILING',
      ],
    ] as const;
    for (const method of ['GET', 'POST'] as const) {
      for (const [suffix, summary, state] of receivers) {
        defineRoute(pings, {
          method,
          path: `/heartbeats/{token}${suffix}`,
          summary,
          tag: TAG,
          auth: 'none',
          params: tokenParams,
          responses: {
            200: { description: 'Successful', schema: pingResponse },
            404: { description: 'Unknown token' },
          },
          handler: receive(state),
        });
      }
    }
  });

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
