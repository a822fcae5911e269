import { z } from 'zod';

/** Path and query parameters shared by the resource routes. */

/** An integer id in a path (check groups, alert channels, maintenance windows). */
export const integerId = z.coerce.number().int().min(1).max(Number.MAX_SAFE_INTEGER);

export const integerIdParams = z.object({ id: integerId });
export const stringIdParams = z.object({ id: z.string().min(1) });

/** `?autoAssignAlerts=true|false`, default true: subscribe a new check or group to every alert channel. */
export const autoAssignAlertsQuery = z.object({
  autoAssignAlerts: z
    .stringbool()
    .default(true)
    .describe('Subscribes the new resource to every existing alert channel (default true)'),
});

/** A time given as UNIX seconds in a query. */
export const unixSeconds = (description: string) =>
  z.coerce.number().int().min(0).optional().describe(`${description}, UNIX seconds`);

/** `?page=1&limit=100`: 1-based page of at most 100 items. */
export const paginationFields = {
  page: z.coerce.number().int().min(1).max(1_000_000).default(1).describe('1-based page number'),
  limit: z.coerce.number().int().min(1).max(100).default(100).describe('Items per page, 1 to 100'),
};

/** A query parameter that may be given once or repeated (`?tag=a&tag=b`). */
export const repeatable = z
  .union([z.string(), z.array(z.string())])
  .transform((value) => (Array.isArray(value) ? value : [value]));
