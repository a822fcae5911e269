import { z } from 'zod';
import { HTTP_METHODS, keyValueSchema, SSL_ALERT_MAX_DAYS } from '../../checks/index.js';
import { templateProblem } from './template.js';

export const ALERT_CHANNEL_TYPES = [
  'EMAIL',
  'SLACK',
  'SLACK_APP',
  'WEBHOOK',
  'SMS',
  'PAGERDUTY',
  'OPSGENIE',
  'CALL',
] as const;
export type AlertChannelType = (typeof ALERT_CHANNEL_TYPES)[number];

const httpUrl = z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' });
const phone = z
  .string()
  .regex(/^\+?[0-9 ()-]{4,20}$/, { message: 'must be a phone number like +31612345678' });

/** The config of each channel type (Checkly's public API field names). */
export const ALERT_CHANNEL_CONFIGS = {
  EMAIL: z.strictObject({ address: z.email({ message: 'must be an e-mail address' }) }),
  SLACK: z.strictObject({ url: httpUrl, channel: z.string().optional() }),
  // Slack-app channels are set up through Slack's OAuth flow; what it stores besides these is kept as given.
  // They post with chat.postMessage (channel + the app's bot token), or to the app's incoming-webhook url.
  SLACK_APP: z.looseObject({
    url: httpUrl.optional(),
    channel: z.string().min(1).optional(),
    channelId: z.string().min(1).optional(),
    token: z.string().min(1).optional(),
  }),
  WEBHOOK: z.strictObject({
    name: z.string().min(1),
    url: httpUrl,
    method: z.enum(HTTP_METHODS).default('POST'),
    headers: z.array(keyValueSchema).default([]),
    queryParameters: z.array(keyValueSchema).default([]),
    template: z
      .string()
      .superRefine((template, ctx) => {
        const problem = templateProblem(template);
        if (problem) ctx.addIssue({ code: 'custom', message: `must be a Handlebars template: ${problem}` });
      })
      .optional(),
    webhookSecret: z.string().optional(),
    webhookType: z.string().optional(),
  }),
  SMS: z.strictObject({ number: phone, name: z.string().min(1) }),
  CALL: z.strictObject({ number: phone, name: z.string().min(1) }),
  PAGERDUTY: z
    .strictObject({
      routingKey: z.string().min(1).optional(),
      serviceKey: z.string().min(1).optional(),
      account: z.string().optional(),
      serviceName: z.string().optional(),
    })
    .refine((c) => c.routingKey !== undefined || c.serviceKey !== undefined, {
      message: 'needs routingKey (or serviceKey): the integration key of the PagerDuty service',
    }),
  OPSGENIE: z.strictObject({
    name: z.string().min(1),
    apiKey: z.string().min(1),
    region: z.enum(['US', 'EU']).default('US'),
    priority: z.enum(['P1', 'P2', 'P3', 'P4', 'P5']).default('P3'),
  }),
} as const satisfies Record<AlertChannelType, z.ZodType>;

/** A check or group that receives a channel's alerts; exactly one of checkId and groupId. */
export const subscriptionInputSchema = z
  .strictObject({
    checkId: z.string().min(1).optional(),
    groupId: z.number().int().min(1).optional(),
    activated: z.boolean().default(true),
  })
  .refine((s) => (s.checkId === undefined) !== (s.groupId === undefined), {
    message: 'must name exactly one of checkId and groupId',
  });
export type SubscriptionInput = z.infer<typeof subscriptionInputSchema>;

export const subscriptionSchema = z.object({
  checkId: z.string().nullable(),
  groupId: z.number().nullable(),
  activated: z.boolean(),
});
export type Subscription = z.infer<typeof subscriptionSchema>;

/** An alert channel as given in a request (spec, Alert channel). */
export const alertChannelSchema = z
  .strictObject({
    type: z.enum(ALERT_CHANNEL_TYPES),
    config: z.record(z.string(), z.unknown()).describe('Depends on type; see docs/api.md'),
    sendRecovery: z.boolean().default(true),
    sendFailure: z.boolean().default(true),
    sendDegraded: z.boolean().default(false),
    sslExpiry: z.boolean().default(false),
    sslExpiryThreshold: z.number().int().min(1).max(SSL_ALERT_MAX_DAYS).default(SSL_ALERT_MAX_DAYS),
    autoSubscribe: z.boolean().default(false),
    /** When given, the channel's subscribers become exactly these. */
    subscriptions: z.array(subscriptionInputSchema).optional(),
    // Response-only fields, accepted so that a fetched channel can be sent back.
    id: z.unknown().optional(),
    created_at: z.unknown().optional(),
    updated_at: z.unknown().optional(),
  })
  .superRefine(
    (channel, ctx) => {
      const schema = ALERT_CHANNEL_CONFIGS[channel.type as AlertChannelType];
      if (!schema || typeof channel.config !== 'object' || channel.config === null) return;
      for (const issue of schema.safeParse(channel.config).error?.issues ?? []) {
        ctx.addIssue({ ...issue, path: ['config', ...issue.path] } as z.core.$ZodRawIssue);
      }
    },
    { when: () => true },
  );
export type AlertChannelInput = z.infer<typeof alertChannelSchema>;

/** What is stored of a channel: its settings, with the config's defaults applied. */
export interface AlertChannelDocument {
  type: AlertChannelType;
  config: Record<string, unknown>;
  sendRecovery: boolean;
  sendFailure: boolean;
  sendDegraded: boolean;
  sslExpiry: boolean;
  sslExpiryThreshold: number;
  autoSubscribe: boolean;
}

export function channelDocumentOf(input: AlertChannelInput): AlertChannelDocument {
  return {
    type: input.type,
    config: ALERT_CHANNEL_CONFIGS[input.type].parse(input.config) as Record<string, unknown>,
    sendRecovery: input.sendRecovery,
    sendFailure: input.sendFailure,
    sendDegraded: input.sendDegraded,
    sslExpiry: input.sslExpiry,
    sslExpiryThreshold: input.sslExpiryThreshold,
    autoSubscribe: input.autoSubscribe,
  };
}

export const alertChannelResponseSchema = z.object({
  id: z.number().int(),
  type: z.enum(ALERT_CHANNEL_TYPES),
  config: z.record(z.string(), z.unknown()),
  subscriptions: z.array(subscriptionSchema),
  sendRecovery: z.boolean(),
  sendFailure: z.boolean(),
  sendDegraded: z.boolean(),
  sslExpiry: z.boolean(),
  sslExpiryThreshold: z.number().int(),
  autoSubscribe: z.boolean(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});
