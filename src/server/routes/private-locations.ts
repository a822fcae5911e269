import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { notFound, validationError } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { listAgentErrors } from '../gateway/agent-errors.js';
import { listAgents } from '../gateway/agent-list.js';
import { agentsSummary } from '../gateway/presence.js';
import {
  activeKeys,
  addKey,
  assignmentsOf,
  createPrivateLocation,
  deletePrivateLocation,
  getPrivateLocation,
  listPrivateLocations,
  type NewKey,
  type PrivateLocationRow,
  revokeKey,
} from '../gateway/private-locations.js';
import { defineRoute } from '../http/route.js';
import { RunEffects } from '../queue/events.js';
import { requeueRunsOfKey } from '../queue/lease.js';
import { METRICS_RETENTION_MS } from '../scheduler/metrics.js';
import type { RunServices } from '../scheduler/run-services.js';
import { iso, isoOrNull } from '../store/rows.js';

const TAG = 'Private locations';
const idParams = z.object({ id: z.string().min(1) });
const keyParams = z.object({ id: z.string().min(1), keyId: z.string().min(1) });

const createBody = z.strictObject({
  name: z.string().min(1).max(255),
  slugName: z
    .string()
    .min(1)
    .max(63)
    .regex(/^[a-z0-9][a-z0-9-]*$/, {
      message: 'must be lowercase letters, digits and dashes, starting with a letter or digit',
    })
    .describe(
      'The location name checks use in privateLocations (a region slug such as us-east-1 serves that region)',
    ),
  icon: z.string().max(100).nullable().optional(),
  proxyUrl: z.url({ message: 'must be a URL' }).nullable().optional(),
});

const keySchema = z.object({
  id: z.string(),
  rawKey: z.string().optional().describe('The key in clear: only in the answer that made it'),
  maskedKey: z.string(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});

const agentsSchema = z.object({
  count: z.number().int().describe('Agents connected now'),
  connected: z.boolean(),
  versions: z.array(z.string()),
  lastSeen: z.string().nullable(),
  engines: z.array(z.string()).describe('Check-suite engines of the connected agents (from their hello)'),
});

const slotsSchema = z.object({ light: z.number().int(), browser: z.number().int() });

const agentSchema = z.object({
  agentId: z.string(),
  hostname: z.string(),
  agentVersion: z.string(),
  platform: z.string(),
  nodeVersion: z.string(),
  state: z
    .enum(['CONNECTED', 'UNRESPONSIVE', 'DISCONNECTED'])
    .describe('UNRESPONSIVE: its connection is not closed, but it has been silent longer than allowed'),
  connectedSince: z.string().nullable().describe('When its current (or last) connection began'),
  firstSeen: z.string(),
  lastSeen: z.string(),
  keyId: z.string().nullable().describe('The key it connected with'),
  runsInFlight: slotsSchema.describe('Runs leased to it and not finished, per slot class'),
  capacity: slotsSchema.describe('Runs it takes at once, per slot class'),
  engines: z.array(z.string()),
  runtimes: z.array(z.string()),
});

const locationSchema = z.object({
  id: z.string(),
  name: z.string(),
  slugName: z.string(),
  icon: z.string().nullable(),
  proxyUrl: z.string().nullable(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
  keys: z.array(keySchema),
  checkAssignments: z.array(z.object({ checkId: z.string(), privateLocationId: z.string() })),
  groupAssignments: z.array(z.object({ groupId: z.number(), privateLocationId: z.string() })),
  agentCount: z.number().int(),
  lastSeen: z.string().nullable(),
  agents: agentsSchema,
});

const metricsQuery = z.object({
  from: unixSeconds('Start of the window, UNIX seconds; less than 15 days ago'),
  to: unixSeconds('End of the window, UNIX seconds; after from'),
});

function unixSeconds(description: string) {
  return z
    .preprocess((v) => (v === undefined || v === '' ? undefined : Number(v)), z.number().int())
    .describe(description);
}

const metricsSchema = z.object({
  timestamps: z.array(z.string()),
  queueSize: z.array(z.number()),
  oldestScheduledCheckRun: z.array(z.number()).describe('Seconds the oldest queued run has waited'),
});

const agentErrorSchema = z.object({
  id: z.number(),
  agentId: z.string().nullable(),
  message: z.string(),
  stack: z.string().nullable(),
  agentVersion: z.string(),
  platform: z.string(),
  nodeVersion: z.string(),
  time: z.string(),
  receivedAt: z.string(),
});

function keyRecord(key: { id: string; key_hint: string; created_at: Date }, rawKey?: string) {
  return {
    id: key.id,
    ...(rawKey ? { rawKey } : {}),
    maskedKey: key.key_hint,
    created_at: iso(key.created_at),
    updated_at: null,
  };
}

async function locationRecord(runs: RunServices, row: PrivateLocationRow, newKey?: NewKey) {
  const keys = await activeKeys(runs.db, row.id);
  const assignments = await assignmentsOf(runs.db, row);
  const agents = await agentsSummary(runs.db, row.id, runs.clock(), runs.agentFreshMs);
  return {
    id: row.id,
    name: row.name,
    slugName: row.slug_name,
    icon: row.icon,
    proxyUrl: row.proxy_url,
    created_at: iso(row.created_at),
    updated_at: isoOrNull(row.updated_at),
    keys: keys.map((key) => keyRecord(key, key.id === newKey?.id ? newKey.rawKey : undefined)),
    checkAssignments: assignments.checkIds.map((checkId) => ({ checkId, privateLocationId: row.id })),
    groupAssignments: assignments.groupIds.map((groupId) => ({ groupId, privateLocationId: row.id })),
    agentCount: agents.count,
    lastSeen: agents.lastSeen,
    agents,
  };
}

export function registerPrivateLocationRoutes(app: FastifyInstance, context: ServerContext): void {
  const runs = context.runs;
  const { db } = runs;
  const found = async (accountId: string, id: string) => {
    const row = await getPrivateLocation(db, accountId, id);
    if (!row) throw notFound('Private location', id);
    return row;
  };

  defineRoute(app, {
    method: 'POST',
    path: '/v1/private-locations',
    summary: 'Create a private location with its first key (shown in clear only in this answer)',
    tag: TAG,
    auth: 'user',
    body: createBody,
    responses: {
      201: { description: 'Created', schema: locationSchema },
      409: { description: 'Slug taken' },
    },
    handler: async ({ auth, body }) => {
      const { location, key } = await createPrivateLocation(db, auth.accountId, body, runs.clock());
      return locationRecord(runs, location, key);
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/private-locations',
    summary: 'List the private locations',
    tag: TAG,
    auth: 'user',
    responses: { 200: { description: 'Successful', schema: z.array(locationSchema) } },
    handler: async ({ auth }) => {
      const rows = await listPrivateLocations(db, auth.accountId);
      return Promise.all(rows.map((row) => locationRecord(runs, row)));
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/private-locations/{id}',
    summary: 'Retrieve a private location with its agents (count, versions, last seen, connected)',
    tag: TAG,
    auth: 'user',
    params: idParams,
    responses: {
      200: { description: 'Successful', schema: locationSchema },
      404: { description: 'Not found' },
    },
    handler: async ({ auth, params }) => locationRecord(runs, await found(auth.accountId, params.id)),
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/private-locations/{id}',
    summary: 'Delete a private location and its keys (its agents are disconnected)',
    tag: TAG,
    auth: 'user',
    params: idParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'Not found' } },
    handler: async ({ auth, params }) => {
      const keyIds = await deletePrivateLocation(db, auth.accountId, params.id);
      if (!keyIds) throw notFound('Private location', params.id);
      for (const keyId of keyIds) runs.events.emit('key-revoked', keyId);
    },
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/private-locations/{id}/keys',
    summary: 'Generate a new key for a private location (at most two active keys)',
    tag: TAG,
    auth: 'user',
    params: idParams,
    responses: {
      201: { description: 'Created', schema: keySchema },
      404: { description: 'Not found' },
      409: { description: 'Two keys are active already' },
    },
    handler: async ({ auth, params }) => {
      const key = await addKey(db, auth.accountId, params.id, runs.clock());
      if (!key) throw notFound('Private location', params.id);
      return keyRecord(key, key.rawKey);
    },
  });

  defineRoute(app, {
    method: 'DELETE',
    path: '/v1/private-locations/{id}/keys/{keyId}',
    summary: 'Revoke a key of a private location (agents connected with it are closed with REVOKED)',
    tag: TAG,
    auth: 'user',
    params: keyParams,
    responses: { 204: { description: 'No Content' }, 404: { description: 'Not found' } },
    handler: async ({ auth, params }) => {
      const location = await found(auth.accountId, params.id);
      if (!(await revokeKey(db, auth.accountId, params.id, params.keyId, runs.clock()))) {
        throw notFound('Key', params.keyId);
      }
      runs.events.emit('key-revoked', params.keyId);
      const key = { accountId: auth.accountId, location: location.slug_name, keyId: params.keyId };
      if ((await requeueRunsOfKey(db, key, runs.clock())) > 0) {
        const effects = new RunEffects();
        effects.queued(key.accountId, key.location);
        runs.publish(effects);
      }
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/private-locations/{id}/metrics',
    summary: 'Health metrics of a private location over a window (sampled every minute)',
    tag: TAG,
    auth: 'user',
    params: idParams,
    query: metricsQuery,
    responses: {
      200: { description: 'Successful', schema: metricsSchema },
      404: { description: 'Not found' },
    },
    handler: async ({ auth, params, query }) => {
      const nowSeconds = Math.floor(runs.clock().getTime() / 1000);
      const problems = [];
      if (query.from >= query.to) problems.push({ path: 'from', message: 'must be less than to' });
      if (query.from <= nowSeconds - METRICS_RETENTION_MS / 1000) {
        problems.push({ path: 'from', message: 'must be less than 15 days ago' });
      }
      if (problems.length > 0) throw validationError('query', problems);
      const location = await found(auth.accountId, params.id);
      const rows = await db.query<{ sampled_at: Date; queue_size: number; oldest_scheduled_seconds: number }>(
        `SELECT sampled_at, queue_size, oldest_scheduled_seconds FROM location_metrics
          WHERE account_id = $1 AND location = $2 AND sampled_at >= $3 AND sampled_at <= $4
          ORDER BY sampled_at`,
        [auth.accountId, location.slug_name, new Date(query.from * 1000), new Date(query.to * 1000)],
      );
      return {
        timestamps: rows.map((r) => iso(r.sampled_at)),
        queueSize: rows.map((r) => Number(r.queue_size)),
        oldestScheduledCheckRun: rows.map((r) => Number(r.oldest_scheduled_seconds)),
      };
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/private-locations/{id}/agents',
    summary:
      'Each agent a private location has known (connected, then unresponsive, then gone): version, connection, runs in flight, capacity',
    tag: TAG,
    auth: 'user',
    params: idParams,
    responses: {
      200: { description: 'Successful', schema: z.array(agentSchema) },
      404: { description: 'Not found' },
    },
    handler: async ({ auth, params }) => {
      const row = await found(auth.accountId, params.id);
      const location = { id: row.id, accountId: row.account_id, slugName: row.slug_name };
      return listAgents(db, location, runs.clock(), runs.agentFreshMs);
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/private-locations/{id}/errors',
    summary: 'Error reports of the agents of a private location, newest first',
    tag: TAG,
    auth: 'user',
    params: idParams,
    responses: {
      200: { description: 'Successful', schema: z.array(agentErrorSchema) },
      404: { description: 'Not found' },
    },
    handler: async ({ auth, params }) => listAgentErrors(db, (await found(auth.accountId, params.id)).id),
  });
}
