import { z } from 'zod';

export const statusPageServiceBodySchema = z.strictObject({ name: z.string().min(1).max(255) });

export const statusPageServiceSchema = z.object({
  id: z.string(),
  name: z.string(),
  accountId: z.string(),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});

export const statusPageBodySchema = z.strictObject({
  name: z.string().min(1).max(255),
  url: z
    .string()
    .regex(/^[a-z0-9](?:[a-z0-9-]{0,61}[a-z0-9])?$/, { message: 'must be a subdomain name: a-z, 0-9 and -' }),
  customDomain: z.string().min(1).nullable().default(null),
  cards: z
    .array(
      z.strictObject({
        name: z.string().min(1).max(255),
        services: z.array(z.strictObject({ id: z.string().min(1) })).default([]),
      }),
    )
    .default([]),
});
export type StatusPageDocument = z.infer<typeof statusPageBodySchema>;

export const statusPageSchema = z.object({
  id: z.string(),
  name: z.string(),
  url: z.string(),
  customDomain: z.string().nullable(),
  cards: z.array(
    z.object({ name: z.string(), services: z.array(z.object({ id: z.string(), name: z.string() })) }),
  ),
  created_at: z.string(),
  updated_at: z.string().nullable(),
});

export const subscriptionBodySchema = z.strictObject({
  type: z.literal('EMAIL').default('EMAIL'),
  address: z.email({ message: 'must be an e-mail address' }),
});

export interface SubscriptionDocument {
  statusPageId: string;
  type: 'EMAIL';
  address: string;
  status: 'PENDING' | 'VERIFIED';
  /** The secret of its verify and unsubscribe links; subscriptions made before mail was sent have none. */
  token?: string;
}

export const statusPageSubscriptionSchema = z.object({
  id: z.string(),
  type: z.literal('EMAIL'),
  address: z.string(),
  status: z.enum(['PENDING', 'VERIFIED']),
  created_at: z.string(),
  updated_at: z.string(),
});
