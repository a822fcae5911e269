import { createHash, timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { Gauge, Registry } from 'prom-client';
import { notificationCounts } from '../alerts/notifications-query.js';
import { bearerOf } from '../auth/authenticate.js';
import { ApiError } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { connectedAgentsByLocation } from '../gateway/presence.js';
import { queueDepths } from '../queue/depth.js';
import type { RunServices } from '../scheduler/run-services.js';

const LABELS = ['account', 'location'] as const;

/**
 * GET /metrics: every location's queue in the Prometheus text format, for KEDA or an HPA metrics adapter to
 * scale agents on, and the alert notifications sent, failed and pending. Not part of the public API (not in the OpenAPI document): open, or behind METRICS_TOKEN.
 */
export function registerMetricsRoute(app: FastifyInstance, context: ServerContext): void {
  const runs = context.runs;
  const token = context.config.metricsToken;
  app.get('/metrics', { config: { auth: 'none' } }, async (request, reply) => {
    if (token !== undefined && !sameSecret(bearerOf(request), token)) {
      throw new ApiError(
        401,
        'GET /metrics needs Authorization: Bearer <METRICS_TOKEN>',
        {},
        {
          'www-authenticate': 'Bearer',
        },
      );
    }
    const registry = await scrape(runs);
    return reply.type(registry.contentType).send(await registry.metrics());
  });
}

/** A registry of its own per scrape, so concurrent scrapes do not mix and deleted locations drop out. */
async function scrape(runs: RunServices): Promise<Registry> {
  const now = runs.clock();
  const [depths, agents, notifications] = await Promise.all([
    queueDepths(runs.db, now),
    connectedAgentsByLocation(runs.db, now, runs.agentFreshMs),
    notificationCounts(runs.db),
  ]);
  const registry = new Registry();
  const gauge = (name: string, help: string) =>
    new Gauge({ name, help, labelNames: LABELS, registers: [registry] });
  const size = gauge('vantage_location_queue_size', 'Runs queued at the location and due now.');
  const oldest = gauge(
    'vantage_location_oldest_queued_seconds',
    'Seconds the oldest due run queued at the location has waited since it was scheduled (0 when none).',
  );
  const connected = gauge(
    'vantage_location_agents_connected',
    'Agents of the private location connected now.',
  );
  for (const d of depths) {
    const labels = { account: d.accountId, location: d.location };
    size.set(labels, d.queueSize);
    oldest.set(labels, d.oldestSeconds);
  }
  for (const a of agents) connected.set({ account: a.accountId, location: a.location }, a.count);
  const alerts = new Gauge({
    name: 'vantage_alert_notifications',
    help: 'Alert notifications in the store by channel type and status: PENDING (being tried), SENT, FAILED.',
    labelNames: ['channel_type', 'status'],
    registers: [registry],
  });
  for (const n of notifications) alerts.set({ channel_type: n.channel_type, status: n.status }, n.count);
  return registry;
}

function sameSecret(given: string | null, expected: string): boolean {
  if (given === null) return false;
  const digest = (value: string) => createHash('sha256').update(value).digest();
  return timingSafeEqual(digest(given), digest(expected));
}
