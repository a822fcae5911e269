import { z } from 'zod';
import {
  type CheckType,
  ESCALATION_TYPES,
  FREQUENCIES,
  LOCATIONS,
  RETRY_TYPES,
  RUNTIME_IDS,
  SUB_MINUTE_KINDS,
  SUB_MINUTE_OFFSETS,
} from './enums.js';

export const keyValueSchema = z.strictObject({
  key: z.string(),
  value: z.string().default(''),
  locked: z.boolean().default(false),
});
export type KeyValue = z.infer<typeof keyValueSchema>;

export const environmentVariableSchema = z.strictObject({
  key: z.string().min(1),
  value: z.string().default(''),
  locked: z.boolean().default(false),
  secret: z.boolean().default(false),
});
export type EnvironmentVariable = z.infer<typeof environmentVariableSchema>;

export const retryStrategySchema = z.strictObject({
  type: z.enum(RETRY_TYPES),
  baseBackoffSeconds: z.number().min(0).default(60),
  maxRetries: z.number().int().min(1).max(10).default(2),
  maxDurationSeconds: z.number().min(0).max(600).default(600),
  sameRegion: z.boolean().default(true),
  onlyOn: z.array(z.enum(['NETWORK_ERROR'])).default([]),
});
export type RetryStrategy = z.infer<typeof retryStrategySchema>;

/** Values a setting may take, with the message that names them. */
/** The most days before a certificate expires at which a check's settings or a channel can alert. */
export const SSL_ALERT_MAX_DAYS = 30;

const oneOf = (values: readonly number[]) =>
  z.number().refine((v) => values.includes(v), { message: `must be one of ${values.join(', ')}` });

/** Alert settings of a check, a group or the account (docs/alerting.md, Settings); defaults fill the rest. */
export const alertSettingsSchema = z.strictObject({
  escalationType: z.enum(ESCALATION_TYPES).default('RUN_BASED'),
  runBasedEscalation: z.strictObject({ failedRunThreshold: z.number().int().min(1).max(5) }).optional(),
  timeBasedEscalation: z.strictObject({ minutesFailingThreshold: oneOf([5, 10, 15, 30]) }).optional(),
  reminders: z
    .strictObject({ amount: oneOf([0, 1, 2, 3, 4, 5, 100_000]), interval: oneOf([5, 10, 15, 30]) })
    .optional(),
  parallelRunFailureThreshold: z
    .strictObject({ enabled: z.boolean(), percentage: oneOf([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]) })
    .optional(),
  sslCertificates: z
    .strictObject({ enabled: z.boolean(), alertThreshold: z.number().int().min(1).max(SSL_ALERT_MAX_DAYS) })
    .optional(),
});
export type AlertSettingsInput = z.infer<typeof alertSettingsSchema>;

export const triggerIncidentSchema = z.strictObject({
  serviceId: z.string(),
  name: z.string(),
  description: z.string(),
  notifySubscribers: z.boolean(),
});

export const alertChannelSubscriptionSchema = z.strictObject({
  alertChannelId: z.number().int(),
  activated: z.boolean().default(true),
});

/** Fields the API returns but never reads; accepted in input so a fetched check can be sent back. */
const responseOnlyFields = {
  created_at: z.unknown().optional(),
  updated_at: z.unknown().optional(),
  alertChannels: z.unknown().optional(),
};

/** Fields shared by all monitor kinds (spec, "Check (fields shared by all monitor kinds)"). */
export const sharedCheckFields = {
  id: z.string().min(1).optional(),
  name: z.string().min(1),
  activated: z.boolean().default(true),
  muted: z.boolean().default(false),
  doubleCheck: z.boolean().default(true),
  shouldFail: z.boolean().default(false),
  locations: z.array(z.enum(LOCATIONS)).nullable().default([]),
  tags: z.array(z.string()).default([]),
  alertSettings: alertSettingsSchema.optional(),
  useGlobalAlertSettings: z.boolean().default(true),
  groupId: z.number().int().nullable().optional(),
  groupOrder: z.number().min(0).nullable().optional(),
  runtimeId: z.enum(RUNTIME_IDS).nullable().optional(),
  alertChannelSubscriptions: z.array(alertChannelSubscriptionSchema).default([]),
  retryStrategy: retryStrategySchema.nullable().optional(),
  triggerIncident: triggerIncidentSchema.optional(),
  runParallel: z.boolean().default(false),
  description: z.string().max(500).nullable().optional(),
  frequency: z
    .number()
    .int()
    .refine((f) => (FREQUENCIES as readonly number[]).includes(f), {
      message: `must be one of ${FREQUENCIES.join(', ')}`,
    })
    .default(10),
  frequencyOffset: z.number().int().min(1).optional(),
  privateLocations: z.array(z.string().min(1)).nullable().default([]),
  environmentVariables: z.array(environmentVariableSchema).max(100).nullable().default([]),
  ...responseOnlyFields,
};

/** A response-time range `0..max` with its default, in milliseconds. */
export function responseTime(defaultMs: number, maxMs: number) {
  return z.number().min(0).max(maxMs).nullable().default(defaultMs);
}

/** The bounds of frequencyOffset for a frequency (spec, frequencyOffset rules). */
export function frequencyOffsetBounds(frequency: number): {
  allowed?: readonly number[];
  min: number;
  max: number;
} {
  if (frequency === 0) return { allowed: SUB_MINUTE_OFFSETS, min: 10, max: 30 };
  if (frequency <= 60) return { min: 1, max: Math.floor(frequency * 10) };
  return { min: 1, max: Math.ceil(frequency / 60) };
}

type SharedFields = { frequency: number; frequencyOffset?: number | undefined };

/** Cross-field rules of the shared fields that a single field's schema cannot express. */
export function refineShared(kind: CheckType) {
  return (check: SharedFields, ctx: z.RefinementCtx) => {
    const { frequency, frequencyOffset } = check;
    if (
      typeof frequency !== 'number' ||
      (frequencyOffset !== undefined && typeof frequencyOffset !== 'number')
    )
      return;
    if (frequency === 0 && !SUB_MINUTE_KINDS.includes(kind)) {
      ctx.addIssue({
        code: 'custom',
        path: ['frequency'],
        message: `0 (sub-minute) is only allowed for ${SUB_MINUTE_KINDS.join(' and ')} checks`,
      });
      return;
    }
    const bounds = frequencyOffsetBounds(frequency);
    if (frequencyOffset === undefined) {
      if (frequency === 0) {
        ctx.addIssue({
          code: 'custom',
          path: ['frequencyOffset'],
          message: 'is required when frequency is 0 and must be 10, 20 or 30 (seconds between runs)',
        });
      }
      return;
    }
    if (frequencyOffset < 1) return; // its own minimum already says so
    if (bounds.allowed && !bounds.allowed.includes(frequencyOffset)) {
      ctx.addIssue({
        code: 'custom',
        path: ['frequencyOffset'],
        message: 'must be 10, 20 or 30 when frequency is 0',
      });
    } else if (frequencyOffset < bounds.min || frequencyOffset > bounds.max) {
      ctx.addIssue({
        code: 'custom',
        path: ['frequencyOffset'],
        message: `must be between ${bounds.min} and ${bounds.max} when frequency is ${frequency}`,
      });
    }
  };
}
