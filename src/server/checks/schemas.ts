import { z } from 'zod';
import { CHECK_SCHEMAS, CHECK_TYPES, type CheckType } from '../../checks/index.js';
import { checkAlertChannelsSchema } from '../alerts/check-view.js';

/** The check schemas as refined zod objects, for the operations below that every kind supports. */
type KindSchema = z.ZodObject<z.ZodRawShape, z.core.$strict>;
const schemaOf = (kind: CheckType) => CHECK_SCHEMAS[kind] as unknown as KindSchema;

/** The heartbeat of a HEARTBEAT check as responses show it: with its ping token, ignored in requests. */
function heartbeatWithToken(required: boolean) {
  const heartbeat = schemaOf('HEARTBEAT').shape.heartbeat as z.ZodObject<z.ZodRawShape, z.core.$strict>;
  return heartbeat.extend({
    pingToken: required
      ? z.string()
      : z.string().optional().describe('Response only: the token of the ping URL /heartbeats/{pingToken}'),
  });
}

/** Fields a kind's create body adds to or tightens in the check model. */
function createExtras(kind: CheckType): z.ZodRawShape {
  // Spec, POST /v1/checks/icmp: heartbeat and script are required in the create body.
  if (kind === 'ICMP') return { heartbeat: z.record(z.string(), z.unknown()), script: z.string() };
  if (kind === 'HEARTBEAT') return { heartbeat: heartbeatWithToken(false) };
  return {};
}

/**
 * The body of `POST /v1/checks/{kind}`: the kind's check, checkType optional (the path names it). The check
 * model's cross-field rules stay (safeExtend keeps refinements).
 */
export function createBodySchema(kind: CheckType, checkTypeRequired = false) {
  const checkType = checkTypeRequired ? z.literal(kind) : z.literal(kind).default(kind);
  return schemaOf(kind).safeExtend({ checkType, ...createExtras(kind) } as z.ZodRawShape);
}

/** The body of `POST /v1/checks`: any kind, chosen by checkType. */
export const anyCreateBodySchema = z.discriminatedUnion(
  'checkType',
  CHECK_TYPES.map((kind) => createBodySchema(kind, true)) as unknown as [KindSchema, ...KindSchema[]],
);

/**
 * The body of `PUT /v1/checks/{kind}/{id}`: the kind's fields, none required. It is merged over the stored check
 * and the result is validated with the full schema, so cross-field rules are checked there.
 */
export function updateBodySchema(kind: CheckType) {
  const shape = { ...schemaOf(kind).shape, ...(kind === 'HEARTBEAT' ? createExtras(kind) : {}) };
  return z.strictObject(shape).partial();
}

/** The body of `PUT /v1/checks/{id}`: fields of any kind, checked once merged over the stored check. */
export const anyUpdateBodySchema = z
  .record(z.string(), z.unknown())
  .describe('Fields of the check to change; the result must be a valid check of its kind');

/** The full check response of a kind (spec: shared response fields, request, thresholds, alertChannels…). */
export function checkResponseSchema(kind: CheckType) {
  return z.object({
    ...schemaOf(kind).shape,
    id: z.string(),
    checkType: z.literal(kind),
    groupId: z.number().int().nullable(),
    created_at: z.string(),
    updated_at: z.string().nullable(),
    alertChannels: checkAlertChannelsSchema,
    ...(kind === 'HEARTBEAT' ? { heartbeat: heartbeatWithToken(true) } : {}),
  });
}

export const anyCheckResponseSchema = z.union(CHECK_TYPES.map((kind) => checkResponseSchema(kind)));

/** Strips what only responses carry (or what a request may not set) before a check is stored. */
export function withoutResponseFields(check: Record<string, unknown>): Record<string, unknown> {
  const { created_at: _c, updated_at: _u, alertChannels: _a, ...rest } = check;
  const heartbeat = rest.heartbeat;
  if (rest.checkType === 'HEARTBEAT' && typeof heartbeat === 'object' && heartbeat !== null) {
    const { pingToken: _p, ...beat } = heartbeat as Record<string, unknown>;
    rest.heartbeat = beat;
  }
  return rest;
}
