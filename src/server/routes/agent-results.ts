import type { FastifyInstance } from 'fastify';
import { z } from 'zod';
import {
  PROTOCOL_LIMITS,
  type ResultBatchAnswer,
  type ResultUpload,
  resultAck,
  resultBatchAnswer,
  resultUpload,
} from '../../protocol/index.js';
import type { AuthContext } from '../auth/context.js';
import { DomainError, errorBody } from '../common/errors.js';
import type { ServerContext } from '../context.js';
import { apiErrorOf } from '../http/domain-errors.js';
import { defineRoute } from '../http/route.js';
import { parseOrThrow } from '../http/validation.js';
import { recordUploadedResult, recordUploadedResults, type UploadOutcome } from '../sessions/record.js';
import { storableBatch, storableUpload } from '../sessions/storable-upload.js';

const TAG = 'Agents';

const resultBatch = z.strictObject({
  results: z.array(z.unknown()).min(1).max(PROTOCOL_LIMITS.resultBatchSize),
});

type Answer = ResultBatchAnswer['results'][number];

/** The agent behind a location key: it reports runs of its account and location only. */
const uploaderOf = (auth: AuthContext) => ({ accountId: auth.accountId, location: auth.locationSlug ?? '' });

/** An upload of a batch as its own answer would name it: `results[3].result.stoppedAt`. */
function refusalAnswer(index: number, refusal: DomainError): Answer {
  const { statusCode, error, message, attributes } = apiErrorOf(refusal).toBody();
  const errors = attributes.errors as { field: string; message: string }[] | undefined;
  if (!errors) return { statusCode, error, message, attributes: { ...attributes, index } };
  const named = errors.map((e) => ({ ...e, field: `results[${index}].${e.field}` }));
  const summary = named.map((e) => `${e.field}: ${e.message}`).join('; ');
  return { statusCode, error, message: `Invalid result: ${summary}`, attributes: { errors: named, index } };
}

export function registerAgentResultRoutes(app: FastifyInstance, context: ServerContext): void {
  const runs = context.runs;

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
        uploaderOf(auth),
        body,
        runs.clock(),
        runs.onSessionFinished,
      );
      runs.publish(effects);
      return ack;
    },
  });

  defineRoute(app, {
    method: 'POST',
    path: '/v1/agent/results/batch',
    summary:
      'Report the results of up to 100 runs at once (protocol version 2): each is recorded or refused on its own, ' +
      'and answered in its place as POST /v1/agent/results would answer it',
    tag: TAG,
    auth: 'location',
    body: resultBatch,
    bodyLimit: PROTOCOL_LIMITS.resultBatchBytes,
    prepareBody: storableBatch,
    responses: {
      200: { description: 'One answer per result, in their order', schema: resultBatchAnswer },
      400: { description: 'Not a batch: `results` is not a list of 1 to 100 items' },
      413: { description: 'Larger than the protocol limit of a batch' },
    },
    handler: async ({ auth, body, request }) => {
      const answers: Answer[] = [];
      const uploads: { index: number; upload: ResultUpload }[] = [];
      body.results.forEach((item, index) => {
        try {
          uploads.push({ index, upload: parseOrThrow(resultUpload, item, 'body') });
        } catch (error) {
          if (!(error instanceof DomainError)) throw error;
          answers[index] = refusalAnswer(index, error);
        }
      });
      const { outcomes, effects } = await recordUploadedResults(
        runs.db,
        uploaderOf(auth),
        uploads.map((u) => u.upload),
        runs.clock(),
        runs.onSessionFinished,
      );
      runs.publish(effects);
      uploads.forEach(({ index, upload }, at) => {
        const outcome = outcomes[at] as UploadOutcome;
        if ('ack' in outcome) answers[index] = { statusCode: 200, ...outcome.ack };
        else if ('refused' in outcome) answers[index] = refusalAnswer(index, outcome.refused);
        else {
          request.log.error(
            { err: outcome.failed, runId: upload.runId },
            'a result of a batch was not recorded',
          );
          answers[index] = {
            ...errorBody(500, 'This result could not be recorded; send it again'),
            attributes: { index },
          };
        }
      });
      return { results: answers };
    },
  });
}
