import { z } from 'zod';
import { assertionSchema } from '../assertion.js';
import { BODY_TYPES, HTTP_METHODS, IP_FAMILIES } from '../enums.js';
import { keyValueSchema, responseTime } from '../shared.js';
import { defineCheck } from './define.js';

const urlSchema = z
  .string()
  .min(1)
  .max(2048)
  .refine((u) => /^https?:\/\//i.test(u) || u.includes('{{'), {
    message: 'must be an http:// or https:// URL',
  });

const scriptSchema = z.strictObject({ content: z.string() });

export const urlCheckSchema = defineCheck('URL', {
  request: z.strictObject({
    url: urlSchema,
    method: z.literal('GET').default('GET'),
    ipFamily: z.enum(IP_FAMILIES).default('IPv4'),
    followRedirects: z.boolean().default(true),
    skipSSL: z.boolean().default(false),
    assertions: z.array(assertionSchema('URL')).default([]),
  }),
  degradedResponseTime: responseTime(3000, 30_000),
  maxResponseTime: responseTime(5000, 30_000),
});
export type UrlCheck = z.infer<typeof urlCheckSchema>;

export const apiCheckSchema = defineCheck('API', {
  request: z.strictObject({
    url: urlSchema,
    method: z.enum(HTTP_METHODS).default('GET'),
    ipFamily: z.enum(IP_FAMILIES).default('IPv4'),
    followRedirects: z.boolean().default(true),
    skipSSL: z.boolean().default(false),
    body: z.string().default(''),
    bodyType: z.enum(BODY_TYPES).default('NONE'),
    headers: z.array(keyValueSchema).default([]),
    queryParameters: z.array(keyValueSchema).default([]),
    basicAuth: z.strictObject({ username: z.string(), password: z.string() }).nullable().optional(),
    assertions: z.array(assertionSchema('API')).default([]),
  }),
  setupScript: scriptSchema.nullable().optional(),
  tearDownScript: scriptSchema.nullable().optional(),
  localSetupScript: z.string().nullable().optional(),
  localTearDownScript: z.string().nullable().optional(),
  setupSnippetId: z.number().int().nullable().optional(),
  tearDownSnippetId: z.number().int().nullable().optional(),
  degradedResponseTime: responseTime(10_000, 30_000),
  maxResponseTime: responseTime(20_000, 30_000),
});
export type ApiCheck = z.infer<typeof apiCheckSchema>;

export type HttpCheck = UrlCheck | ApiCheck;
