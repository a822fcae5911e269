import { z } from 'zod';

export const REPEAT_UNITS = ['DAY', 'WEEK', 'MONTH', 'YEAR'] as const;
export type RepeatUnit = (typeof REPEAT_UNITS)[number];

const dateTime = z.iso.datetime({ offset: true, message: 'must be an ISO 8601 date-time' });

/**
 * A maintenance window (Checkly's public API): a time span, repeated or not, during which the checks and groups of
 * its tags pause their scheduled runs, silence their alerts, or both (both by default).
 */
export const maintenanceWindowSchema = z
  .strictObject({
    name: z.string().min(1).max(255),
    tags: z.array(z.string()).default([]),
    startsAt: dateTime,
    endsAt: dateTime,
    repeatInterval: z.number().int().min(1).nullable().default(null),
    repeatUnit: z.enum(REPEAT_UNITS).nullable().default(null),
    repeatEndsAt: dateTime.nullable().default(null),
    pauseRuns: z.boolean().default(true),
    silenceAlerts: z.boolean().default(true),
    // Response-only fields, accepted so that a fetched window can be sent back.
    id: z.unknown().optional(),
    created_at: z.unknown().optional(),
    updated_at: z.unknown().optional(),
  })
  .superRefine(
    (w, ctx) => {
      const starts = Date.parse(String(w.startsAt));
      const ends = Date.parse(String(w.endsAt));
      if (!Number.isNaN(starts) && !Number.isNaN(ends) && ends <= starts) {
        ctx.addIssue({ code: 'custom', path: ['endsAt'], message: 'must be after startsAt' });
      }
      if ((w.repeatUnit == null) !== (w.repeatInterval == null)) {
        ctx.addIssue({
          code: 'custom',
          path: [w.repeatUnit == null ? 'repeatUnit' : 'repeatInterval'],
          message: 'repeatUnit and repeatInterval go together',
        });
      }
      if (w.repeatEndsAt != null && !Number.isNaN(starts) && Date.parse(String(w.repeatEndsAt)) < starts) {
        ctx.addIssue({ code: 'custom', path: ['repeatEndsAt'], message: 'must not be before startsAt' });
      }
    },
    { when: () => true },
  );

export type MaintenanceWindowInput = z.infer<typeof maintenanceWindowSchema>;
export type MaintenanceWindowDocument = Omit<MaintenanceWindowInput, 'id' | 'created_at' | 'updated_at'>;

export function windowDocumentOf(input: MaintenanceWindowInput): MaintenanceWindowDocument {
  const { id: _i, created_at: _c, updated_at: _u, ...document } = input;
  return {
    ...document,
    startsAt: new Date(document.startsAt).toISOString(),
    endsAt: new Date(document.endsAt).toISOString(),
    repeatEndsAt: document.repeatEndsAt ? new Date(document.repeatEndsAt).toISOString() : null,
  };
}

export const maintenanceWindowResponseSchema = z.object({
  id: z.number().int(),
  name: z.string(),
  tags: z.array(z.string()),
  startsAt: z.string(),
  endsAt: z.string(),
  repeatInterval: z.number().int().nullable(),
  repeatUnit: z.enum(REPEAT_UNITS).nullable(),
  repeatEndsAt: z.string().nullable(),
  pauseRuns: z.boolean(),
  silenceAlerts: z.boolean(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});

const maintenanceUpdateSchema = z.object({
  id: z.string(),
  maintenanceWindowId: z.number().int(),
  maintenanceId: z.string(),
  status: z.string(),
  description: z.string(),
  notifySubscribers: z.boolean(),
  created_at: z.string(),
  previousStatus: z.string(),
  previousStartsAt: z.string(),
  previousEndsAt: z.string(),
  dateAdjustments: z.object({ startsAt: z.string(), endsAt: z.string() }),
});

/** The spec's Maintenance: one occurrence of a window. */
export const maintenanceSchema = z.object({
  id: z.string(),
  maintenanceWindowId: z.number().int(),
  startsAt: z.string(),
  endsAt: z.string(),
  status: z.enum(['SCHEDULED', 'IN_PROGRESS', 'COMPLETED']),
  created_at: z.string(),
  updated_at: z.string(),
  updates: z.array(maintenanceUpdateSchema),
});
