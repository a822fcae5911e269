import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorReport, PROTOCOL_LIMITS, resultAck, resultUpload } from '../../protocol/index.js';
import type { AuthContext } from '../auth/context.js';
import type { ServerContext } from '../context.js';
import { storeAgentError } from '../gateway/agent-errors.js';
import { ARTIFACT_NAME, ArtifactTooLargeError, openArtifact, saveArtifact } from '../gateway/artifacts.js';
import { ApiError, notFound } from '../http/errors.js';
import { defineRoute } from '../http/route.js';
import { type RunServices, runServicesOf } from '../scheduler/run-services.js';
import { recordUploadedResult } from '../sessions/record.js';
import { storableUpload } from '../sessions/storable-upload.js';

const TAG = 'Agents';
const artifactParams = z.object({
  runId: z.string().min(1).max(100),
  name: z
    .string()
    .regex(ARTIFACT_NAME, { message: 'must be a file name: letters, digits, . _ - (at most 200)' }),
});

/** An agent's own run: of its account and location. */
async function agentRunOr404(runs: RunServices, auth: AuthContext, runId: string): Promise<void> {
  const rows = await runs.db.query('SELECT 1 FROM runs WHERE id = $1 AND account_id = $2 AND location = $3', [
    runId,
    auth.accountId,
    auth.locationSlug,
  ]);
  if (rows.length === 0) throw notFound('Run', runId);
}

function tooLarge(): ApiError {
  return new ApiError(
    413,
    `Artifacts are at most ${PROTOCOL_LIMITS.artifactBytes} bytes`,
    { limitBytes: PROTOCOL_LIMITS.artifactBytes },
    { connection: 'close' },
  );
}

export function registerAgentRoutes(app: FastifyInstance, context: ServerContext): void {
  const runs = runServicesOf(context);

  defineRoute(app, {
    method: 'GET',
    path: '/v1/agent/connect',
    summary: 'The agent WebSocket (docs/protocol.md): upgrade with a private-location key',
    tag: TAG,
    auth: 'location',
    responses: { 426: { description: 'Upgrade Required: connect with a WebSocket client' } },
    handler: async () => {
      throw new ApiError(
        426,
        'This is the agent WebSocket: connect with a WebSocket upgrade',
        {},
        { upgrade: 'websocket' },
      );
    },
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/agent/results',
    summary:
      'Report the result of a run (idempotent by runId: the first copy is recorded, every copy acknowledged)',
    tag: TAG,
    auth: 'location',
    body: resultUpload,
    bodyLimit: PROTOCOL_LIMITS.resultBytes,
    prepareBody: storableUpload,
    responses: {
      200: { description: 'Successful', schema: resultAck },
      400: { description: 'Not a result: a flag or time is missing or impossible' },
      404: { description: 'Unknown run' },
      409: { description: 'The run is not leased to this agent, or not at this attempt' },
      413: { description: 'Larger than the protocol limit of a result' },
    },
    handler: async ({ auth, body }) => {
      const { ack, effects } = await recordUploadedResult(
        runs.db,
        { accountId: auth.accountId, location: auth.locationSlug ?? '' },
        body,
        runs.clock(),
      );
      runs.publish(effects);
      return ack;
    },
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/agent/errors',
    summary:
      'Report an error-level event of an agent (scrubbed of keys, variables, URLs, headers and bodies)',
    tag: TAG,
    auth: 'location',
    body: errorReport,
    responses: { 201: { description: 'Created', schema: z.object({ id: z.number() }) } },
    handler: async ({ auth, body, request }) => {
      const agentId = request.headers['x-agent-id'];
      const id = await storeAgentError(
        runs.db,
        {
          accountId: auth.accountId,
          privateLocationId: auth.privateLocationId ?? '',
          agentId: typeof agentId === 'string' ? agentId.slice(0, 100) : null,
        },
        body,
        runs.clock(),
      );
      return { id };
    },
  });

  defineRoute(app, {
    method: 'GET',
    path: '/v1/runs/{runId}/artifacts/{name}',
    summary: 'Download an artifact of a run (screenshot, trace, video, report)',
    tag: TAG,
    auth: 'user',
    params: artifactParams,
    responses: { 200: { description: 'The artifact' }, 404: { description: 'Not found' } },
    handler: async ({ auth, params, reply }) => {
      const artifact = await openArtifact(runs.db, {
        dataDir: runs.dataDir,
        accountId: auth.accountId,
        ...params,
      });
      if (!artifact) throw notFound('Artifact', `${params.runId}/${params.name}`);
      return reply.type(artifact.contentType).header('content-length', artifact.size).send(artifact.stream);
    },
  });

  // Uploads are streams of any type: this context reads no body itself.
  app.register(async (uploads) => {
    uploads.removeAllContentTypeParsers();
    uploads.addContentTypeParser('*', (_request, payload, done) => done(null, payload));
    defineRoute(uploads, {
      method: 'PUT',
      path: '/v1/agent/runs/{runId}/artifacts/{name}',
      summary: `Upload an artifact of a run, streamed (at most ${PROTOCOL_LIMITS.artifactBytes} bytes)`,
      tag: TAG,
      auth: 'location',
      params: artifactParams,
      responses: {
        201: { description: 'Created', schema: z.object({ url: z.string() }) },
        404: { description: 'Unknown run' },
        413: { description: 'Larger than 150 MB' },
      },
      handler: async ({ auth, params, request }) => {
        const declared = Number(request.headers['content-length']);
        if (declared > PROTOCOL_LIMITS.artifactBytes) throw tooLarge();
        await agentRunOr404(runs, auth, params.runId);
        const contentType = request.headers['content-type'] ?? 'application/octet-stream';
        try {
          await saveArtifact(
            runs.db,
            { dataDir: runs.dataDir, accountId: auth.accountId, ...params },
            (request.body as Readable | undefined) ?? Readable.from([]),
            contentType,
            PROTOCOL_LIMITS.artifactBytes,
            runs.clock(),
          );
        } catch (error) {
          if (error instanceof ArtifactTooLargeError) throw tooLarge();
          throw error;
        }
        const path = `/v1/runs/${encodeURIComponent(params.runId)}/artifacts/${encodeURIComponent(params.name)}`;
        return { url: `${runs.publicUrl}${path}` };
      },
    });
  });
}
