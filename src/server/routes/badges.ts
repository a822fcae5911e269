import type { FastifyInstance, FastifyReply } from 'fastify';
import { z } from 'zod';
import { type CheckBadgeState, checkStateBadge, serviceStateBadge, uptimeBadge } from '../badges/badge.js';
import { checkBadgeFacts, serviceBadgeFacts } from '../badges/facts.js';
import { notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { defineRoute } from '../http/route.js';
import type { ServiceState } from '../status-pages/public/states.js';

const TAG = 'Badges';
const CACHE_S = 60;

const idParams = z.object({ id: z.string().min(1).max(100) });
const stateQuery = z.strictObject({ label: z.string().min(1).max(60).optional() });
const uptimeQuery = z.strictObject({
  label: z.string().min(1).max(60).optional(),
  days: z.coerce
    .number()
    .int()
    .refine((d) => [1, 7, 30, 90].includes(d), { message: 'must be 1, 7, 30 or 90' })
    .default(30),
});

function svg(reply: FastifyReply, body: string) {
  return reply
    .type('image/svg+xml; charset=utf-8')
    .header('cache-control', `public, max-age=${CACHE_S}`)
    .header('content-security-policy', "default-src 'none'; style-src 'unsafe-inline'")
    .header('x-content-type-options', 'nosniff')
    .send(body);
}

/**
 * SVG badges for READMEs (docs/status-pages.md, Badges): a check's state and uptime, a status-page service's state
 * and uptime. Public, like the status pages: the id is all a badge needs.
 */
export function registerBadgeRoutes(app: FastifyInstance, { db, runs }: ServerContext): void {
  const notFoundResponse = { 404: { description: 'No such check or service' } };
  const image = { 200: { description: 'An SVG image' }, ...notFoundResponse };

  const subjects = [
    {
      path: 'checks',
      what: 'a check’s',
      stateWords: 'passing, degraded, failing, paused',
      facts: (id: string, days: number) => checkBadgeFacts(db, id, days, runs.clock()),
      notFound: (id: string) => notFound('Check', id),
      stateBadge: (label: string, state: string) => checkStateBadge(label, state as CheckBadgeState),
    },
    {
      path: 'services',
      what: 'a status-page service’s',
      stateWords: 'as its public page shows it',
      facts: (id: string, days: number) => serviceBadgeFacts(db, id, days, runs.clock()),
      notFound: (id: string) => notFound('Status-page service', id),
      stateBadge: (label: string, state: string) => serviceStateBadge(label, state as ServiceState),
    },
  ];
  for (const subject of subjects) {
    const factsOf = async (id: string, days: number) => {
      const facts = await subject.facts(id, days);
      if (!facts) throw subject.notFound(id);
      return facts;
    };
    defineRoute(app, {
      method: 'GET',
      path: `/v1/badges/${subject.path}/{id}`,
      summary: `A badge of ${subject.what} state (${subject.stateWords})`,
      tag: TAG,
      auth: 'none',
      params: idParams,
      query: stateQuery,
      responses: image,
      handler: async ({ params, query, reply }) => {
        const facts = await factsOf(params.id, 1);
        return svg(reply, subject.stateBadge(query.label ?? facts.name, facts.state));
      },
    });
    defineRoute(app, {
      method: 'GET',
      path: `/v1/badges/${subject.path}/{id}/uptime`,
      summary: `A badge of ${subject.what} uptime over the last 1, 7, 30 (default) or 90 days`,
      tag: TAG,
      auth: 'none',
      params: idParams,
      query: uptimeQuery,
      responses: image,
      handler: async ({ params, query, reply }) => {
        const facts = await factsOf(params.id, query.days);
        return svg(reply, uptimeBadge(query.label ?? facts.name, facts.uptime, query.days));
      },
    });
  }
}
