import { z } from 'zod';

export const INCIDENT_SEVERITIES = ['MINOR', 'MEDIUM', 'MAJOR', 'CRITICAL'] as const;
export type IncidentSeverity = (typeof INCIDENT_SEVERITIES)[number];

/** An incident's course, in the order it usually takes; RESOLVED ends it (a later update may reopen it). */
export const INCIDENT_STATUSES = ['INVESTIGATING', 'IDENTIFIED', 'MONITORING', 'RESOLVED'] as const;
export type IncidentStatus = (typeof INCIDENT_STATUSES)[number];

const text = (max: number) => z.string().trim().min(1).max(max);

export const incidentCreateBodySchema = z.strictObject({
  serviceId: z.string().min(1),
  name: text(255),
  description: text(10_000),
  severity: z.enum(INCIDENT_SEVERITIES).default('MAJOR'),
  status: z.enum(INCIDENT_STATUSES).default('INVESTIGATING'),
  notifySubscribers: z.boolean().default(false),
});
export type IncidentCreateBody = z.infer<typeof incidentCreateBodySchema>;

export const incidentUpdateBodySchema = z
  .strictObject({
    name: text(255).optional(),
    description: text(10_000).optional(),
    severity: z.enum(INCIDENT_SEVERITIES).optional(),
  })
  .refine((body) => Object.keys(body).length > 0, { message: 'must change name, description or severity' });

export const incidentProgressBodySchema = z.strictObject({
  status: z.enum(INCIDENT_STATUSES),
  description: text(10_000),
  notifySubscribers: z.boolean().default(false),
});
export type IncidentProgressBody = z.infer<typeof incidentProgressBodySchema>;

export const incidentUpdateSchema = z.object({
  id: z.string(),
  status: z.enum(INCIDENT_STATUSES),
  description: z.string(),
  notifySubscribers: z.boolean(),
  created_at: z.string(),
});

export const incidentSchema = z.object({
  id: z.string(),
  serviceId: z.string(),
  name: z.string(),
  description: z.string(),
  severity: z.enum(INCIDENT_SEVERITIES),
  status: z.enum(INCIDENT_STATUSES),
  /** The check whose failure opened it (`triggerIncident`); null for one made through the API. */
  checkId: z.string().nullable(),
  notifySubscribers: z.boolean(),
  created_at: z.string(),
  updated_at: z.string(),
  resolved_at: z.string().nullable(),
  /** Oldest first; the first is the incident's opening. */
  updates: z.array(incidentUpdateSchema),
});
export type Incident = z.infer<typeof incidentSchema>;

export const incidentListQuerySchema = z.strictObject({
  serviceId: z.string().min(1).optional(),
  /** open: not RESOLVED; resolved: RESOLVED. */
  state: z.enum(['open', 'resolved']).optional(),
  limit: z.coerce.number().int().min(1).max(100).default(100),
});
