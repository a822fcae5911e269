import { z } from 'zod';
import { CHECK_TYPES, SESSION_STATUSES } from '../checks/enums.js';
import type { SlotCounts } from './slots.js';
import { PROTOCOL_LIMITS } from './version.js';

const slotCounts: z.ZodType<SlotCounts> = z.strictObject({
  light: z.number().int().min(0),
  browser: z.number().int().min(0),
});

const capability = z.strictObject({ available: z.boolean(), reason: z.string().nullable() });

// ── agent → control plane ─────────────────────────────────────────────────────────────────────────────

/** First message on a connection; its fields are those of its `protocolVersion`. */
export const helloMessage = z
  .strictObject({
    type: z.literal('hello'),
    protocolVersion: z.number().int(),
    agentId: z.string().min(1).max(100),
    agentVersion: z.string().max(50),
    hostname: z.string().max(255),
    platform: z.string().max(100),
    nodeVersion: z.string().max(50),
    runtimes: z.array(z.string().max(20)).max(20),
    /** The check-suite engines this agent has (`node22`, `bun1.3`, …): from version 2 on. */
    engines: z.array(z.string().max(20)).max(20).optional(),
    /** Every check kind, with whether this agent can run it and why not. */
    capabilities: z.record(z.enum(CHECK_TYPES), capability),
    slots: slotCounts,
    /** Runs this agent is still executing from an earlier connection, so their leases carry on. */
    running: z.array(z.string()).max(1000),
  })
  .superRefine((hello, context) => {
    if (hello.protocolVersion < 2 && hello.engines !== undefined) {
      context.addIssue({
        code: 'custom',
        path: ['engines'],
        message: 'is not in protocol version 1 (added in 2)',
      });
    }
    if (hello.protocolVersion >= 2 && hello.engines === undefined) {
      context.addIssue({
        code: 'custom',
        path: ['engines'],
        message: 'is required from protocol version 2 on',
      });
    }
  });

/** Grants more runs: the agent asks only for slots that are free and not yet asked for. */
export const creditMessage = z.strictObject({ type: z.literal('credit'), credits: slotCounts });

/** Keeps the connection and the leases of the named runs alive. */
export const heartbeatMessage = z.strictObject({
  type: z.literal('heartbeat'),
  running: z.array(z.string()).max(1000),
  queued: z.number().int().min(0),
});

/** Hands back runs that were received but not started (shutdown); they return to the queue at once. */
export const releaseMessage = z.strictObject({
  type: z.literal('release'),
  runIds: z.array(z.string()).max(1000),
});

export const agentMessage = z.discriminatedUnion('type', [
  helloMessage,
  creditMessage,
  heartbeatMessage,
  releaseMessage,
]);
export type AgentMessage = z.infer<typeof agentMessage>;
export type HelloMessage = z.infer<typeof helloMessage>;

// The control plane's messages to the agent are in control-messages.ts.

// ── HTTP bodies ─────────────────────────────────────────────────────────────────────────────────────

/**
 * The result of one run, sent with header `Idempotency-Key: <runId>:<attempt>`; the control plane records the
 * first it receives for a run and acknowledges every copy.
 */
export const resultUpload = z.strictObject({
  runId: z.string(),
  attempt: z.number().int().min(1),
  agentId: z.string(),
  status: z.enum(SESSION_STATUSES),
  /** The result record of docs/checks.md (resultType is decided by the control plane). */
  result: z.record(z.string(), z.unknown()),
  /** True when nothing answered at all: a NETWORK_ERROR for the retry strategy. */
  networkError: z.boolean(),
  /**
   * From version 2 on: the failure would be the same on every attempt (a runtime this agent lacks, an undefined
   * variable), so the retry strategy does not apply. Sent only to a control plane that welcomed version 2.
   */
  permanentError: z.boolean().optional(),
});
export type ResultUpload = z.infer<typeof resultUpload>;

export const resultAck = z.strictObject({ recorded: z.boolean(), duplicate: z.boolean() });

/** From version 2 on: several uploads in one request (`AGENT_PATHS.resultBatch`). */
export const resultBatch = z.strictObject({
  results: z.array(resultUpload).min(1).max(PROTOCOL_LIMITS.resultBatchSize),
});

/**
 * From version 2 on, the answer to a batch upload: one item per upload, in their order, each what a single upload
 * would have been answered: `statusCode` 200 with its acknowledgement, or an error status with the error body.
 */
export const resultBatchAnswer = z.strictObject({
  results: z.array(
    z.union([
      resultAck.extend({ statusCode: z.literal(200) }),
      z.strictObject({
        statusCode: z.number().int().min(400).max(599),
        error: z.string(),
        message: z.string(),
        attributes: z.record(z.string(), z.unknown()),
      }),
    ]),
  ),
});
export type ResultBatchAnswer = z.infer<typeof resultBatchAnswer>;

/** An error-level event of an agent; holds no keys, variables, check configuration, URLs, headers or bodies. */
export const errorReport = z.strictObject({
  message: z.string().max(2000),
  stack: z.string().max(16_000).nullable(),
  agentVersion: z.string().max(50),
  platform: z.string().max(100),
  nodeVersion: z.string().max(50),
  time: z.string(),
});
export type ErrorReport = z.infer<typeof errorReport>;
