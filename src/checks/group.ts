import { z } from 'zod';
import { assertionSchema } from './assertion.js';
import { LOCATIONS, RUNTIME_IDS } from './enums.js';
import {
  alertChannelSubscriptionSchema,
  alertSettingsSchema,
  environmentVariableSchema,
  keyValueSchema,
  retryStrategySchema,
} from './shared.js';

/** Request settings that the API checks of a group inherit (Checkly: apiCheckDefaults). */
export const apiCheckDefaultsSchema = z.strictObject({
  url: z.string().max(2048).default(''),
  headers: z.array(keyValueSchema).default([]),
  queryParameters: z.array(keyValueSchema).default([]),
  assertions: z.array(assertionSchema('API')).default([]),
  basicAuth: z.strictObject({ username: z.string(), password: z.string() }).nullable().default(null),
});

/** A group's retry strategy: its own, or FALLBACK (each check keeps its own). */
export const groupRetryStrategySchema = z.union([z.literal('FALLBACK'), retryStrategySchema]);

/** A check group (spec, Check group; JSON names of Checkly's public API). */
export const checkGroupSchema = z
  .strictObject({
    name: z.string().min(1),
    activated: z.boolean().default(true),
    muted: z.boolean().default(false),
    tags: z.array(z.string()).default([]),
    locations: z.array(z.enum(LOCATIONS)).default([]),
    concurrency: z.number().int().min(1).default(3),
    apiCheckDefaults: apiCheckDefaultsSchema.prefault({}),
    runtimeId: z.enum(RUNTIME_IDS).nullable().optional(),
    alertChannelSubscriptions: z.array(alertChannelSubscriptionSchema).default([]),
    setupSnippetId: z.number().int().nullable().optional(),
    tearDownSnippetId: z.number().int().nullable().optional(),
    localSetupScript: z.string().nullable().optional(),
    localTearDownScript: z.string().nullable().optional(),
    privateLocations: z.array(z.string().min(1)).default([]),
    runParallel: z.boolean().default(false),
    retryStrategy: groupRetryStrategySchema.nullable().optional(),
    useGlobalAlertSettings: z.boolean().default(true),
    doubleCheck: z.boolean().default(true),
    alertSettings: alertSettingsSchema.optional(),
    environmentVariables: z.array(environmentVariableSchema).max(100).default([]),
    // Response-only fields, accepted so that a fetched group can be sent back.
    id: z.unknown().optional(),
    created_at: z.unknown().optional(),
    updated_at: z.unknown().optional(),
  })
  .superRefine(
    (group, ctx) => {
      // When the union can only say "does not match", name the broken fields of an object strategy as well.
      const strategy = (group as { retryStrategy?: unknown }).retryStrategy;
      if (typeof strategy !== 'object' || strategy === null) return;
      const unionIssues = groupRetryStrategySchema.safeParse(strategy).error?.issues ?? [];
      if (!unionIssues.some((issue) => issue.code === 'invalid_union')) return;
      for (const issue of retryStrategySchema.safeParse(strategy).error?.issues ?? []) {
        ctx.addIssue({ ...issue, path: ['retryStrategy', ...issue.path] } as z.core.$ZodRawIssue);
      }
    },
    { when: () => true },
  );

export type CheckGroup = z.infer<typeof checkGroupSchema>;
