import { Readable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import { errorReport, PROTOCOL_LIMITS } from '../../protocol/index.js';
import { ApiError, DomainError, invalid, notFound } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { storeAgentError } from '../gateway/agent-errors.js';
import {
  ARTIFACT_NAME,
  ArtifactTooLargeError,
  claimArtifact,
  openArtifact,
  saveArtifact,
  servedType,
} from '../gateway/artifacts.js';
import { isUpgrade } from '../gateway/gateway.js';
import { apiErrorOf } from '../http/domain-errors.js';
import { defineRoute } from '../http/route.js';

const TAG = 'Agents';
const artifactParams = z.object({
  runId: z.string().min(1).max(100),
  name: z
    .string()
    .regex(ARTIFACT_NAME, { message: 'must be a file name: letters, digits, . _ - (at most 200)' }),
});

function tooLarge(): ApiError {
  return new ApiError(
    413,
    `Artifacts are at most ${PROTOCOL_LIMITS.artifactBytes} bytes`,
    { limitBytes: PROTOCOL_LIMITS.artifactBytes },
    { connection: 'close' },
  );
}

export function registerAgentRoutes(app: FastifyInstance, context: ServerContext): void {
  const runs = context.runs;

  defineRoute(app, {
    method: 'GET',
    path: '/v1/agent/connect',
    summary: 'The agent WebSocket (docs/protocol.md): upgrade with a private-location key',
    tag: TAG,
    auth: 'location',
    responses: { 426: { description: 'Upgrade Required: connect with a WebSocket client' } },
    handler: async ({ auth, request, reply }) => {
      if (!isUpgrade(request.raw)) {
        throw new ApiError(
          426,
          'This is the agent WebSocket: connect with a WebSocket upgrade',
          {},
          { upgrade: 'websocket' },
        );
      }
      runs.gateway.accept(request.raw, auth);
      reply.hijack();
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
      // Uploaded by agents that run users' scripts: always a download, never a page rendered on this origin.
      return reply
        .type(servedType(artifact.contentType))
        .header('content-length', artifact.size)
        .header('content-disposition', `attachment; filename="${params.name}"`)
        .header('x-content-type-options', 'nosniff')
        .header('content-security-policy', "sandbox; default-src 'none'")
        .send(artifact.stream);
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
        400: { description: 'Without x-agent-id' },
        409: { description: 'The run is not leased to this agent, or the name was uploaded already' },
        413: { description: "Larger than 150 MB, or over the run's quota (64 artifacts, 750 MiB)" },
      },
      handler: async ({ auth, params, request }) => {
        const declared = Number(request.headers['content-length']);
        if (declared > PROTOCOL_LIMITS.artifactBytes) throw tooLarge();
        const agentId = request.headers['x-agent-id'];
        if (typeof agentId !== 'string' || agentId === '') {
          throw invalid('x-agent-id: required: the agent that holds the lease of the run', {
            errors: [{ field: 'x-agent-id', message: 'required' }],
          });
        }
        const ref = { dataDir: runs.dataDir, accountId: auth.accountId, ...params };
        const contentType = request.headers['content-type'] ?? 'application/octet-stream';
        const body = (request.body as Readable | undefined) ?? Readable.from([]);
        try {
          const left = await claimArtifact(
            runs.db,
            { ...ref, location: auth.locationSlug ?? '', agentId },
            Number.isFinite(declared) ? declared : 0,
            contentType,
            runs.clock(),
          );
          await saveArtifact(runs.db, ref, body, Math.min(PROTOCOL_LIMITS.artifactBytes, left));
        } catch (error) {
          if (error instanceof ArtifactTooLargeError) throw tooLarge();
          // The agent may still be sending the refused body: it gets the answer and the connection ends.
          if (error instanceof DomainError) throw apiErrorOf(error, { connection: 'close' });
          throw error;
        }
        const path = `/v1/runs/${encodeURIComponent(params.runId)}/artifacts/${encodeURIComponent(params.name)}`;
        return { url: `${runs.publicUrl}${path}` };
      },
    });
  });
}
